//go:build darwin || freebsd

package platform

import (
	"crypto/rand"
	"os"

	"golang.org/x/sys/unix"
)

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
		n, err := unix.IoctlGetInt(fd, inputQueued)
		gone = ev&(unix.POLLHUP|unix.POLLERR) != 0 || ev&unix.POLLIN != 0 && err == nil && n == 0
	})
	return gone
}
