package platform

import (
	"fmt"
	"io"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

func ignoringEINTR[T any](f func() (T, error)) (T, error) {
	for {
		if v, err := f(); err != unix.EINTR {
			return v, err
		}
	}
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

// readProcFile reads a small /proc file whole in three system calls: os.ReadFile's open tries the
// poller (which /proc refuses) and stats the file, nine calls in all; a call's look reads a dozen.
func readProcFile(path string) ([]byte, error) {
	fd, err := ignoringEINTR(func() (int, error) { return unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0) })
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	b := make([]byte, 0, 512)
	for {
		n, err := readFD(fd, b[len(b):cap(b)])
		b = b[:len(b)+n]
		switch {
		case err == io.EOF:
			return b, nil
		case err != nil:
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		case len(b) == cap(b):
			b = append(b, 0)[:len(b)]
		}
	}
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
	if err := unix.Dup3(2, 1, 0); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// Unread is how many bytes wait in f, a pipe or terminal, to be read.
func Unread(f *os.File) int {
	n := 0
	control(f, func(fd int) { n, _ = unix.IoctlGetInt(fd, unix.TIOCINQ) })
	return n
}

// control runs do on f's descriptor, unless f is closed.
func control(f *os.File, do func(fd int)) {
	if raw, err := f.SyscallConn(); err == nil {
		raw.Control(func(fd uintptr) { do(int(fd)) })
	}
}

// OpenByteLocks opens dir to lock its bytes: open file description locks.
func OpenByteLocks(dir string) (*ByteLocks, error) {
	fd, err := openDir(dir)
	if err != nil {
		return nil, err
	}
	return &ByteLocks{fd: fd}, nil
}

// Share takes a shared lock of byte n, or fails at once.
func (l *ByteLocks) Share(n int64) error {
	lk := unix.Flock_t{Type: unix.F_RDLCK, Start: n, Len: 1}
	return os.NewSyscallError("fcntl", unix.FcntlFlock(uintptr(l.fd), unix.F_OFD_SETLK, &lk))
}

// Held reports whether byte n is locked through another open (ours too); when in doubt, it is.
func (l *ByteLocks) Held(n int64) bool {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Start: n, Len: 1}
	if err := unix.FcntlFlock(uintptr(l.fd), unix.F_OFD_GETLK, &lk); err != nil {
		return true
	}
	return lk.Type != unix.F_UNLCK
}

func (l *ByteLocks) Close() { unix.Close(l.fd) }

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

// RandomBytes fills b, at most 256 bytes, from getrandom(2): crypto/rand
// would link Go's FIPS 140 module, 200 KB of code each call maps.
func RandomBytes(b []byte) error {
	n, err := ignoringEINTR(func() (int, error) { return unix.Getrandom(b, 0) })
	if err == nil && n != len(b) {
		err = fmt.Errorf("got %d of %d", n, len(b))
	}
	return err
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

// dialUnix waits only while the listener's backlog is full (as net.Dial does), within timeout.
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

// ListenUnix listens on path, a new socket file, mode 0600 (defence in depth: its dir is private).
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
