package platform

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

func DialUnix(path string) (*os.File, error) {
	fd, err := dialUnix(path, 0)
	if err != nil {
		return nil, err
	}
	return pollable(fd, path)
}

// DialUnixBlocking connects to path; reads and writes fail after timeout.
func DialUnixBlocking(path string, timeout time.Duration) (BlockingConn, error) {
	fd, err := dialUnix(path, timeout)
	return BlockingConn(fd), err
}

// dialUnix waits only while the listener's backlog is full (as net.Dial
// does), as long as timeout allows.
func dialUnix(path string, timeout time.Duration) (int, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	if timeout != 0 {
		tv := unix.NsecToTimeval(timeout.Nanoseconds())
		unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
		unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_SNDTIMEO, &tv)
	}
	sa := &unix.SockaddrUnix{Name: path}
	if _, err := ignoringEINTR(func() (int, error) { return 0, unix.Connect(fd, sa) }); err != nil {
		unix.Close(fd)
		return -1, &os.PathError{Op: "dial", Path: path, Err: err}
	}
	return fd, nil
}

// pollable makes fd non-blocking, so that os.NewFile hands it to the poller.
func pollable(fd int, name string) (*os.File, error) {
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("setnonblock", err)
	}
	return os.NewFile(uintptr(fd), name), nil
}

// ListenUnix listens on path, a new socket file of mode 0600 (defence in
// depth: its directory is private).
func ListenUnix(path string) (*UnixListener, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	// bind applies the umask, leaving no moment with a wider mode as a
	// chmod would; nothing else in the relay makes files meanwhile.
	old := unix.Umask(0o177)
	err = unix.Bind(fd, &unix.SockaddrUnix{Name: path})
	unix.Umask(old)
	if err == nil {
		err = unix.Listen(fd, unix.SOMAXCONN)
	}
	if err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "listen", Path: path, Err: err}
	}
	f, err := pollable(fd, path)
	if err != nil {
		return nil, err
	}
	return &UnixListener{f: f}, nil
}

func (l *UnixListener) Accept() (*os.File, error) {
	raw, err := l.f.SyscallConn()
	if err != nil {
		return nil, errListenerClosed
	}
	var nfd int
	var aerr error
	err = raw.Read(func(fd uintptr) bool {
		for {
			nfd, _, aerr = unix.Accept4(int(fd), unix.SOCK_CLOEXEC)
			// A client that hung up while queued is skipped, as net does.
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

// PeerUID is the user of the other end of socket c when it connected.
func PeerUID(c *os.File) (int, error) {
	var cred *unix.Ucred
	err := os.ErrClosed
	control(c, func(fd int) { cred, err = unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED) })
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}

// PeerHungUp reports, without reading, whether c's peer closed its end.
func PeerHungUp(c *os.File) bool {
	gone := false
	control(c, func(fd int) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		n, err := unix.Poll(fds, 0)
		gone = err == nil && n > 0 && fds[0].Revents&(unix.POLLHUP|unix.POLLRDHUP|unix.POLLERR) != 0
	})
	return gone
}

func (c BlockingConn) Read(p []byte) (int, error) {
	n, err := readFD(int(c), p)
	if err == unix.EAGAIN {
		return 0, os.ErrDeadlineExceeded
	}
	return n, err
}

func (c BlockingConn) Write(p []byte) (int, error) {
	written := 0
	for written < len(p) {
		n, err := ignoringEINTR(func() (int, error) { return unix.Write(int(c), p[written:]) })
		switch {
		case err == unix.EAGAIN:
			return written, os.ErrDeadlineExceeded
		case err != nil:
			return written, err
		}
		written += n
	}
	return written, nil
}

func (c BlockingConn) Close() error { return unix.Close(int(c)) }
