package platform

import (
	"context"
	"os"

	"golang.org/x/sys/unix"
)

// WatchExit returns a channel that is closed when process pid exits, or
// nil when the process cannot be watched (gone already, or no pidfd
// support). The kernel wakes the watcher through a pidfd, which the
// runtime's poller waits on with the rest: nothing polls on a timer, and
// no thread is held while the process runs. Once ctx is done the pidfd is
// closed and the watcher ends; the channel is then never closed.
func WatchExit(ctx context.Context, pid int) <-chan struct{} {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return nil
	}
	pidfd := os.NewFile(uintptr(fd), "pidfd") // non-blocking: the poller's
	raw, err := pidfd.SyscallConn()
	if err != nil {
		pidfd.Close()
		return nil
	}
	exited := make(chan struct{})
	// Closing the file wakes the waiting Read, which then fails.
	stopClosing := context.AfterFunc(ctx, func() { pidfd.Close() })
	go func() {
		defer stopClosing()
		defer pidfd.Close()
		var gone bool
		if raw.Read(func(fd uintptr) bool {
			var failed bool
			gone, failed = hasExited(int(fd))
			return gone || failed // else: wait until readable
		}) == nil && gone {
			close(exited)
		}
	}()
	return exited
}

// hasExited asks the pidfd, without waiting, whether its process has
// exited (it is then readable); failed when poll itself fails.
func hasExited(pidfd int) (exited, failed bool) {
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	var n int
	err := ignoringEINTR(func() (err error) {
		n, err = unix.Poll(fds, 0)
		return err
	})
	return err == nil && n > 0 && fds[0].Revents&unix.POLLIN != 0, err != nil
}
