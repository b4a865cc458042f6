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
	pidfd := os.NewFile(uintptr(fd), "pidfd") // non-blocking: the poller's
	raw, _ := pidfd.SyscallConn()             // fails only for a nil file
	exited := make(chan struct{})
	// Closing the file wakes the waiting Read, which then fails.
	stopClosing := context.AfterFunc(ctx, func() { pidfd.Close() })
	go func() {
		defer stopClosing()
		defer pidfd.Close()
		var gone bool
		if raw.Read(func(fd uintptr) bool {
			// Polled without waiting: the pidfd is readable once pid exited.
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			n, err := ignoringEINTR(func() (int, error) { return unix.Poll(fds, 0) })
			gone = err == nil && n > 0 && fds[0].Revents&unix.POLLIN != 0
			return gone || err != nil // else: wait until readable
		}) == nil && gone {
			close(exited)
		}
	}()
	return exited
}
