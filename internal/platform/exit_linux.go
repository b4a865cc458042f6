package platform

import (
	"context"
	"os"

	"golang.org/x/sys/unix"
)

// WatchExit returns a channel closed when process pid exits (never once
// ctx is done), nil if it cannot (gone, no pidfd); it holds no thread.
func WatchExit(ctx context.Context, pid int) <-chan struct{} {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return nil
	}
	return whenReadable(ctx, os.NewFile(uintptr(fd), "pidfd"), func(fd int) (bool, error) {
		// Polled without waiting: the pidfd is readable once pid exited.
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := ignoringEINTR(func() (int, error) { return unix.Poll(fds, 0) })
		return err == nil && n > 0 && fds[0].Revents&unix.POLLIN != 0, err
	})
}
