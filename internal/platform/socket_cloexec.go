//go:build linux || freebsd

package platform

import (
	"os"

	"golang.org/x/sys/unix"
)

func newSocket() (int, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	return fd, os.NewSyscallError("socket", err)
}

func acceptConn(fd int) (int, error) {
	nfd, _, err := unix.Accept4(fd, unix.SOCK_CLOEXEC)
	return nfd, err
}
