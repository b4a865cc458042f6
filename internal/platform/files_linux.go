package platform

import (
	"fmt"
	"io"
	"os"

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

// ReadNow reads what the pipe or fifo f holds now: ErrWouldWait when
// nothing but a writer is left, io.EOF when none is.
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

// SetStdoutAside moves our standard output where no child or stray print
// reaches it, and points descriptor 1 at standard error.
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

// Held reports whether byte n is locked through another open (ours too);
// when in doubt, it is.
func (l *ByteLocks) Held(n int64) bool {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Start: n, Len: 1}
	if err := unix.FcntlFlock(uintptr(l.fd), unix.F_OFD_GETLK, &lk); err != nil {
		return true
	}
	return lk.Type != unix.F_UNLCK
}

func (l *ByteLocks) Close() { unix.Close(l.fd) }

// LockDir waits for the exclusive lock (flock) of directory dir, held
// until release or the process ends, independent of its ByteLocks.
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
