// Package platform holds every call that is the operating system's own,
// behind a small API that says nothing of the OS: what the kernel says
// of a process (ReadProc and its Proc: family, terminal, state, start;
// its name, command line, directory, environment and owner; whether it
// waits for input, and its exit, WatchExit), the terminal (its mode and
// input queue, opening it, its foreground group), locks in the runtime
// directory, unix sockets without package net (peer credentials, a
// hang-up), random bytes without crypto/, and descriptor juggling
// (SetStdoutAside, ReadNow).
//
// Only Linux is implemented: its code lives in the files named _linux.go,
// the types and the helpers built on them in the others, so that another
// OS's files can slot in beside Linux's. No other package may import
// golang.org/x/sys/unix or read /proc (their tests aside).
//
// It only answers and provides: it never signals a process, never types
// into a terminal and never runs tmux.
package platform
