package platform

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

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

// RandomBytes fills b, at most 256 bytes, from getrandom(2): crypto/rand
// would link Go's FIPS 140 module, 200 KB of code each call maps.
func RandomBytes(b []byte) error {
	n, err := ignoringEINTR(func() (int, error) { return unix.Getrandom(b, 0) })
	if err == nil && n != len(b) {
		err = fmt.Errorf("got %d of %d", n, len(b))
	}
	return err
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
