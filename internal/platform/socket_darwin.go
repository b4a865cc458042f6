package platform

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// macOS has neither SOCK_CLOEXEC nor accept4: close-on-exec is set after, under the fork lock,
// so that no child started meanwhile inherits the descriptor (as package net does).

func newSocket() (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, os.NewSyscallError("socket", err)
	}
	unix.CloseOnExec(fd)
	return fd, nil
}

func acceptConn(fd int) (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	nfd, _, err := unix.Accept(fd)
	if err == nil {
		unix.CloseOnExec(nfd)
	}
	return nfd, err
}
