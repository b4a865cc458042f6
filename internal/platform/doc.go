// Package platform holds every call that is the operating system's own,
// behind an API that says nothing of the OS: what the kernel says of a
// process (ReadProc, its command line, environment and owner, whether it
// waits for input, its exit), terminals, locks in the runtime directory,
// unix sockets without package net, random bytes without crypto/, and
// descriptor juggling.
//
// Only Linux is implemented, in the files named _linux.go; the types and
// the helpers built on them are in the others, so that another OS's files
// can slot in beside Linux's. No other package may import
// golang.org/x/sys/unix or read /proc (their tests aside). It never
// signals a process, types into a terminal or runs tmux.
package platform
