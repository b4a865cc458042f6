package platform

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The descriptor calls that Linux, macOS and FreeBSD make alike: fifos, pipes, flock, unix sockets,
// and a wait in the runtime's poller for a descriptor to become readable.

func ignoringEINTR[T any](f func() (T, error)) (T, error) {
	for {
		if v, err := f(); err != unix.EINTR {
			return v, err
		}
	}
}

// whenReadable returns a channel closed once came, asked whenever f (non-blocking: the poller's) is
// readable, says that what f waits for came; never once ctx is done. It holds no thread, and
// closes f at the end.
func whenReadable(ctx context.Context, f *os.File, came func(fd int) (bool, error)) <-chan struct{} {
	raw, _ := f.SyscallConn() // fails only for a nil file
	done := make(chan struct{})
	// Closing the file wakes the waiting Read, which then fails.
	stopClosing := context.AfterFunc(ctx, func() { f.Close() })
	go func() {
		defer stopClosing()
		defer f.Close()
		var yes bool
		if raw.Read(func(fd uintptr) bool {
			var err error
			yes, err = came(int(fd))
			return yes || err != nil // else: wait until readable
		}) == nil && yes {
			close(done)
		}
	}()
	return done
}

// OpenNoWait opens a fifo for ReadNow, without waiting for a writer.
func OpenNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
}

// ReadNow reads what pipe or fifo f holds now: if nothing, ErrWouldWait with a writer left, or EOF.
func ReadNow(f *os.File, p []byte) (n int, err error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return 0, err
	}
	if rerr := raw.Read(func(fd uintptr) bool {
		n, err = readFD(int(fd), p)
		return true // one try, never a wait
	}); rerr != nil {
		return 0, rerr
	}
	if err == unix.EAGAIN {
		return 0, ErrWouldWait
	}
	return n, err
}

// readFD reads fd once (EAGAIN when it would block), io.EOF at the end.
func readFD(fd int, p []byte) (int, error) {
	n, err := ignoringEINTR(func() (int, error) { return unix.Read(fd, p) })
	switch {
	case err != nil:
		return 0, err
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}

// SetStdoutAside moves stdout where no child or stray print reaches it, and points fd 1 at stderr.
func SetStdoutAside(name string) (*os.File, error) {
	fd, err := unix.FcntlInt(1, unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return nil, err
	}
	if err := unix.Dup2(2, 1); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// Unread is how many bytes wait in f, a pipe or terminal, to be read (a terminal in canonical
// mode: complete lines only).
func Unread(f *os.File) int {
	n := 0
	control(f, func(fd int) { n = unreadFD(fd) })
	return n
}

func unreadFD(fd int) int {
	n, _ := unix.IoctlGetInt(fd, inputQueued)
	return n
}

// control runs do on f's descriptor, unless f is closed.
func control(f *os.File, do func(fd int)) {
	if raw, err := f.SyscallConn(); err == nil {
		raw.Control(func(fd uintptr) { do(int(fd)) })
	}
}

// LockDir waits for dir's exclusive flock, held until release or exit, independent of ByteLocks.
func LockDir(dir string) (release func(), err error) {
	fd, err := openDir(dir)
	if err != nil {
		return nil, err
	}
	if _, err := ignoringEINTR(func() (int, error) { return 0, unix.Flock(fd, unix.LOCK_EX) }); err != nil {
		unix.Close(fd)
		return nil, os.NewSyscallError("flock", err)
	}
	return func() { unix.Close(fd) }, nil
}

func openDir(dir string) (int, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return fd, nil
}

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

// MaxSocketPath is the longest path a unix socket's address holds: 107 bytes on Linux, 103 on
// macOS and FreeBSD (sun_path, and its final NUL).
const MaxSocketPath = len(unix.RawSockaddrUnix{}.Path) - 1

// checkSocketPath says why path cannot name a socket, where bind and connect say only EINVAL.
func checkSocketPath(path string) error {
	if len(path) > MaxSocketPath {
		return fmt.Errorf("the socket path %s is %d bytes, longer than the %d a unix socket's address holds: choose a shorter directory",
			path, len(path), MaxSocketPath)
	}
	return nil
}

// dialUnix waits only while the listener's backlog is full (as net.Dial does), within timeout.
func dialUnix(path string, timeout time.Duration) (int, error) {
	if err := checkSocketPath(path); err != nil {
		return -1, err
	}
	fd, err := newSocket()
	if err != nil {
		return -1, err
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

// ListenUnix listens on path, a new socket file, mode 0600 (defence in depth: its dir is private).
func ListenUnix(path string) (*UnixListener, error) {
	if err := checkSocketPath(path); err != nil {
		return nil, err
	}
	fd, err := newSocket()
	if err != nil {
		return nil, err
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
			nfd, aerr = acceptConn(int(fd))
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

// FileOwner is the user owning the file fi describes; ok is false for no Stat_t.
func FileOwner(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
