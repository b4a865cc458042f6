package relay

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Unix stream sockets for the relay, without package net.
//
// ptysend is a short-lived process whose memory is mostly its own binary:
// the kernel maps nearly all of the text and tables it runs. Package net
// (resolvers, IP parsing and the like) made 0.5 MB of it, and the relay
// needs none of that: its sockets are plain descriptors wrapped in
// *os.File, which the runtime poller serves like net's connections,
// deadlines included. Measured on the static build: peak memory for
// seq 1 300000 5.3-5.8 -> 4.8-5.0 MiB, a trivial call ~0.6 ms faster.

// conn is one end of a connected unix socket.
type conn = *os.File

// dialUnix connects to the unix socket at path.
func dialUnix(path string) (conn, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	// A unix socket connects at once, or waits only while the listener's
	// backlog is full, like net.Dial.
	for {
		err = unix.Connect(fd, &unix.SockaddrUnix{Name: path})
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "dial", Path: path, Err: err}
	}
	return pollable(fd, path)
}

// pollable hands fd to the runtime poller: os.NewFile does so for a
// non-blocking descriptor.
func pollable(fd int, name string) (conn, error) {
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("setnonblock", err)
	}
	return os.NewFile(uintptr(fd), name), nil
}

// unixListener is a listening unix socket.
type unixListener struct{ f *os.File }

// listenUnix listens on path, which must not exist. The socket file is
// made with mode 0600, as private as the directory it is in (defence in
// depth). It is never removed by Close: its owner decides.
func listenUnix(path string) (*unixListener, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	// bind makes the file with the umask applied; a chmod after it would
	// leave a moment with the wider mode. The umask is the process's, and
	// nothing else in the relay makes files meanwhile.
	old := unix.Umask(0o177)
	err = unix.Bind(fd, &unix.SockaddrUnix{Name: path})
	unix.Umask(old)
	if err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "listen", Path: path, Err: err}
	}
	if err := unix.Listen(fd, unix.SOMAXCONN); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "listen", Path: path, Err: err}
	}
	f, err := pollable(fd, path)
	if err != nil {
		return nil, err
	}
	return &unixListener{f: f}, nil
}

// errListenerClosed is what Accept returns once the listener is closed.
var errListenerClosed = errors.New("listener closed")

// Accept waits for the next connection; Close makes it return.
func (l *unixListener) Accept() (conn, error) {
	raw, err := l.f.SyscallConn()
	if err != nil {
		return nil, errListenerClosed
	}
	var nfd int
	var aerr error
	err = raw.Read(func(fd uintptr) bool {
		for {
			nfd, _, aerr = unix.Accept4(int(fd), unix.SOCK_CLOEXEC)
			// A client that hung up while queued is not an error (net
			// skips it too).
			if aerr != unix.EINTR && aerr != unix.ECONNABORTED {
				break
			}
		}
		return aerr != unix.EAGAIN // EAGAIN: wait until readable
	})
	if err != nil {
		return nil, errListenerClosed
	}
	if aerr != nil {
		return nil, fmt.Errorf("accept: %w", aerr)
	}
	return pollable(nfd, l.f.Name())
}

func (l *unixListener) Close() error { return l.f.Close() }

// blockingConn is a connected unix socket read and written with plain
// blocking system calls, bypassing the runtime's poller: a query is one
// request and one answer in a process that does nothing else, and the
// poller's setup (epoll, an event descriptor, parking and waking the
// goroutine) is a measurable part of so short a run. Timeouts are the
// socket's own (SO_RCVTIMEO, SO_SNDTIMEO).
type blockingConn int

// dialBlocking connects to the unix socket at path; every read and write
// fails after timeout.
func dialBlocking(path string, timeout time.Duration) (blockingConn, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	tv := unix.NsecToTimeval(timeout.Nanoseconds())
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	for {
		err = unix.Connect(fd, &unix.SockaddrUnix{Name: path})
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		return -1, &os.PathError{Op: "dial", Path: path, Err: err}
	}
	return blockingConn(fd), nil
}

func (c blockingConn) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(c), p)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return 0, os.ErrDeadlineExceeded
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c blockingConn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := unix.Write(int(c), p[written:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return written, os.ErrDeadlineExceeded
		case err != nil:
			return written, err
		}
		written += n
	}
	return written, nil
}

func (c blockingConn) Close() error { return unix.Close(int(c)) }
