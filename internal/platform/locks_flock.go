//go:build !linux || portable

package platform

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// ByteLocks is a directory opened to lock single bytes of it: locks of this open, which another
// open sees, even in the process, until closed. macOS and FreeBSD have no open file description
// locks of a byte range; flock(2) locks belong to the open as those do, but lock a whole file: so
// byte n is a file of its own in the directory, ".lock-N". A lock file nobody holds is removed by
// the next look at it (Held, Prune); Share takes a file removed meanwhile again.
type ByteLocks struct {
	dir    string
	shares map[int64]int // the descriptors holding our shared locks, by byte
}

const lockFilePrefix = ".lock-"

// OpenByteLocks opens dir to lock its bytes: lock files in it.
func OpenByteLocks(dir string) (*ByteLocks, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &os.PathError{Op: "open", Path: dir, Err: unix.ENOTDIR}
	}
	return &ByteLocks{dir: dir, shares: map[int64]int{}}, nil
}

func (l *ByteLocks) lockFile(n int64) string {
	return filepath.Join(l.dir, fmt.Sprintf("%s%x", lockFilePrefix, n))
}

// Share takes a shared lock of byte n; it waits only while a look (Held, Prune) holds the file.
func (l *ByteLocks) Share(n int64) error {
	path := l.lockFile(n)
	for range 100 {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return &os.PathError{Op: "open", Path: path, Err: err}
		}
		if _, err := ignoringEINTR(func() (int, error) { return 0, unix.Flock(fd, unix.LOCK_SH) }); err != nil {
			unix.Close(fd)
			return os.NewSyscallError("flock", err)
		}
		if isFileAt(fd, path) {
			if old, ok := l.shares[n]; ok {
				unix.Close(old)
			}
			l.shares[n] = fd
			return nil
		}
		unix.Close(fd) // a look removed it as we opened it: the next open makes another
	}
	return fmt.Errorf("locking %s: removed again and again", path)
}

// Held reports whether byte n is locked through another open (ours too); when in doubt, it is.
// A lock file nobody holds is removed.
func (l *ByteLocks) Held(n int64) bool { return lockFileHeld(l.lockFile(n)) }

// Prune removes the lock files nobody holds: those of processes gone since.
func (l *ByteLocks) Prune() {
	entries, _ := os.ReadDir(l.dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), lockFilePrefix) {
			lockFileHeld(filepath.Join(l.dir, e.Name()))
		}
	}
}

// Release drops our lock of byte n, and its file unless another open holds it too.
func (l *ByteLocks) Release(n int64) {
	fd, ok := l.shares[n]
	if !ok {
		return
	}
	delete(l.shares, n)
	// Ours alone, the lock becomes exclusive at once: the file goes, as Held would remove it.
	if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil && isFileAt(fd, l.lockFile(n)) {
		unix.Unlink(l.lockFile(n))
	}
	unix.Close(fd)
}

func (l *ByteLocks) Close() {
	for n := range l.shares {
		l.Release(n)
	}
}

// lockFileHeld tries the exclusive lock of path without waiting: taken, nobody holds it, and the
// file is removed while it is held, so that a Share that opened it meanwhile sees it gone.
func lockFileHeld(path string) bool {
	for range 100 {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			return false
		}
		if err != nil {
			return true
		}
		_, err = ignoringEINTR(func() (int, error) { return 0, unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) })
		if err != nil { // EWOULDBLOCK: held; another error: in doubt
			unix.Close(fd)
			return true
		}
		// Another look may have removed this file, and a Share made a new one, since our open.
		current := isFileAt(fd, path)
		if current {
			unix.Unlink(path)
		}
		unix.Close(fd)
		if current {
			return false
		}
	}
	return true
}

// isFileAt reports whether the open file fd is the one path names now.
func isFileAt(fd int, path string) bool {
	var open, named unix.Stat_t
	if unix.Fstat(fd, &open) != nil || unix.Lstat(path, &named) != nil {
		return false
	}
	return open.Dev == named.Dev && open.Ino == named.Ino
}
