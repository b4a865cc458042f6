package platform

import (
	"os"

	"golang.org/x/sys/unix"
)

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
	if err := ignoringEINTR(func() error { return unix.Flock(fd, unix.LOCK_EX) }); err != nil {
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
