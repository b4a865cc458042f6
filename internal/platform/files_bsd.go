//go:build darwin || freebsd

package platform

import (
	"crypto/rand"
	"os"

	"golang.org/x/sys/unix"
)

// FIONREAD, _IOR('f', 127, int) on macOS and FreeBSD alike; x/sys/unix defines it for neither.
const fionread = 0x4004667f

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
	n, _ := unix.IoctlGetInt(fd, fionread)
	return n
}

// RandomBytes fills b, at most 256 bytes, from crypto/rand (getentropy on macOS, getrandom on
// FreeBSD): Linux calls getrandom itself, to keep Go's FIPS module out of every call.
func RandomBytes(b []byte) error {
	_, err := rand.Read(b)
	return err
}

// PeerUID is the user of the other end of socket c when it connected (LOCAL_PEERCRED).
func PeerUID(c *os.File) (int, error) {
	var cred *unix.Xucred
	err := os.ErrClosed
	control(c, func(fd int) { cred, err = unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED) })
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}

// PeerHungUp reports, without reading, whether c's peer closed its end. The BSDs have no
// POLLRDHUP: the end shows as a hang-up, or as readable with nothing to read; a peer that wrote
// before it closed is seen gone only once that is read.
func PeerHungUp(c *os.File) bool {
	gone := false
	control(c, func(fd int) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(fds, 0); err != nil || n == 0 {
			return
		}
		ev := fds[0].Revents
		n, err := unix.IoctlGetInt(fd, fionread)
		gone = ev&(unix.POLLHUP|unix.POLLERR) != 0 || ev&unix.POLLIN != 0 && err == nil && n == 0
	})
	return gone
}
