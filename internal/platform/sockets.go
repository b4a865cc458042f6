package platform

import (
	"errors"
	"os"
)

// Unix stream sockets, without package net.
//
// ptysend is a short-lived process whose memory is mostly its own binary:
// the kernel maps nearly all of the text and tables it runs. Package net
// (resolvers, IP parsing and the like) made 0.5 MB of it, and the relay
// needs none of that: its sockets are plain descriptors wrapped in
// *os.File, which the runtime poller serves like net's connections,
// deadlines included. Measured on the static build: peak memory for
// seq 1 300000 5.3-5.8 -> 4.8-5.0 MiB, a trivial call ~0.6 ms faster.

// UnixListener is a listening unix socket.
type UnixListener struct{ f *os.File }

// errListenerClosed is what Accept returns once the listener is closed.
var errListenerClosed = errors.New("listener closed")

// Close makes a waiting Accept return. It never removes the socket file:
// its owner decides.
func (l *UnixListener) Close() error { return l.f.Close() }

// BlockingConn is a connected unix socket read and written with plain
// blocking system calls, bypassing the runtime's poller: a query is one
// request and one answer in a process that does nothing else, and the
// poller's setup (epoll, an event descriptor, parking and waking the
// goroutine) is a measurable part of so short a run. Timeouts are the
// socket's own.
type BlockingConn int
