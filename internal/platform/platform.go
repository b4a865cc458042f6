// Package platform holds every call that is the operating system's own
// (procfs, pidfd, terminals, locks, sockets, random bytes), behind an API
// that says nothing of the OS. Linux's code is in the _linux.go files, the
// types and helpers built on it in the others, so that another OS's files
// can slot in. No other package may import golang.org/x/sys/unix or read
// /proc (tests aside). It never signals a process, types into a terminal
// or runs tmux.
package platform

import (
	"errors"
	"os"
)

// ErrWouldWait is ReadNow's: nothing to read yet, and a writer is left.
var ErrWouldWait = errors.New("nothing to read yet")

// ByteLocks is a directory opened to lock single bytes of it: locks of
// this open, which another open sees, even in the process, until closed.
// A raw descriptor, unlike an *os.File, is never closed by the GC.
type ByteLocks struct{ fd int }

// UnixListener is a listening unix socket: sockets are descriptors the
// runtime poller serves, without package net's 0.5 MB in every call's
// memory (seq 1 300000 peaked at 5.3-5.8 MiB, now 4.8-5.0).
type UnixListener struct{ f *os.File }

var errListenerClosed = errors.New("listener closed")

// Close makes a waiting Accept return. It never removes the socket file.
func (l *UnixListener) Close() error { return l.f.Close() }

// BlockingConn is a unix socket used with blocking system calls and its
// own timeouts: the runtime poller's setup is a measurable part of a query.
type BlockingConn int

// EditsLines reports whether a line editor (readline, zle, node) reads tty.
func EditsLines(tty *os.File) bool {
	canonical, _, _, ok := termMode(tty)
	return ok && !canonical
}

// passwordMode: lines read without echo, as getpass, sudo and su ask.
func passwordMode(tty *os.File) bool {
	canonical, echo, _, ok := termMode(tty)
	return ok && canonical && !echo
}

// TranslatesNewlines reports whether tty turns "\n" into "\r\n" (a default).
func TranslatesNewlines(tty *os.File) bool {
	_, _, onlcr, ok := termMode(tty)
	return !ok || onlcr
}

// TypedAhead reports keys typed ahead, waiting in the terminal's queue.
func TypedAhead(shellPID int) bool {
	tty := OpenTTY(TTYOf(shellPID))
	if tty == nil {
		return false
	}
	defer tty.Close()
	return Unread(tty) > 0
}
