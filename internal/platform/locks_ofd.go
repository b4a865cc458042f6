//go:build linux && !portable

package platform

import (
	"os"

	"golang.org/x/sys/unix"
)

// ByteLocks is a directory opened to lock single bytes of it: locks of
// this open, which another open sees, even in the process, until closed.
// A raw descriptor, unlike an *os.File, is never closed by the GC.
type ByteLocks struct{ fd int }

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

// Release drops our lock of byte n.
func (l *ByteLocks) Release(n int64) {
	lk := unix.Flock_t{Type: unix.F_UNLCK, Start: n, Len: 1}
	unix.FcntlFlock(uintptr(l.fd), unix.F_OFD_SETLK, &lk)
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

// Prune has nothing to remove: the kernel drops the lock with the open.
func (l *ByteLocks) Prune() {}
