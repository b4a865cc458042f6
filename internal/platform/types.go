package platform

import (
	"errors"
	"os"
)

// ErrWouldWait is ReadNow's: nothing to read yet, and a writer is left.
var ErrWouldWait = errors.New("nothing to read yet")

// ByteLocks is a directory opened to lock single bytes of it. The locks
// belong to this open, not to the process (another open sees them, even
// in the same process), and end with it or the process. A raw descriptor,
// unlike an *os.File, is never closed by the garbage collector.
type ByteLocks struct{ fd int }

// UnixListener is a listening unix socket. Sockets are plain descriptors
// in *os.File, served by the runtime poller: package net made 0.5 MB of
// ptysend, mapped into every call's memory (seq 1 300000 peaked at
// 5.3-5.8 MiB, now 4.8-5.0; a trivial call ~0.6 ms faster).
type UnixListener struct{ f *os.File }

var errListenerClosed = errors.New("listener closed")

// Close makes a waiting Accept return. It never removes the socket file.
func (l *UnixListener) Close() error { return l.f.Close() }

// BlockingConn is a connected unix socket read and written with blocking
// system calls and the socket's own timeouts: the runtime poller's setup
// is a measurable part of a query, one request and one answer.
type BlockingConn int
