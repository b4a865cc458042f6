package platform

import "golang.org/x/sys/unix"

// ExitOf returns a channel that is closed when process pid exits, or nil
// when the process cannot be watched (gone already, or no pidfd support).
// The kernel wakes the watcher through a pidfd: nothing polls on a timer.
func ExitOf(pid int) <-chan struct{} {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return nil
	}
	exited := make(chan struct{})
	go func() {
		defer unix.Close(fd)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds, -1)
			if err == unix.EINTR {
				continue
			}
			if n > 0 && fds[0].Revents&unix.POLLIN != 0 {
				close(exited)
			}
			return
		}
	}()
	return exited
}
