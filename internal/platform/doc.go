// Package platform holds every call that is the operating system's own
// (procfs, pidfd, terminals, locks, sockets, random bytes), behind an API
// that says nothing of the OS. Linux's code is in the _linux.go files, the
// types and helpers built on it in the others, so that another OS's files
// can slot in. No other package may import golang.org/x/sys/unix or read
// /proc (tests aside). It never signals a process, types into a terminal
// or runs tmux.
package platform
