package platform

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
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
	var n int
	err := ignoringEINTR(func() (err error) {
		n, err = unix.Read(fd, p)
		return err
	})
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
	raw, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	raw.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), unix.TIOCINQ) })
	return n
}
