//go:build darwin || freebsd

package platform

import (
	"context"
	"os"

	"golang.org/x/sys/unix"
)

// WatchExit returns a channel closed when process pid exits (never once ctx is done), nil if it
// cannot (gone); it holds no thread: a kqueue watching pid's NOTE_EXIT is itself readable once
// the exit came, so the runtime's poller waits for it as for a pidfd on Linux.
func WatchExit(ctx context.Context, pid int) <-chan struct{} {
	kq, err := unix.Kqueue()
	if err != nil {
		return nil
	}
	unix.CloseOnExec(kq)
	var ev unix.Kevent_t
	unix.SetKevent(&ev, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	ev.Fflags = unix.NOTE_EXIT
	if _, err := unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil); err != nil { // ESRCH: gone
		unix.Close(kq)
		return nil
	}
	if err := unix.SetNonblock(kq, true); err != nil {
		unix.Close(kq)
		return nil
	}
	queue := os.NewFile(uintptr(kq), "kqueue") // non-blocking: the poller's
	raw, _ := queue.SyscallConn()              // fails only for a nil file
	exited := make(chan struct{})
	// Closing the file wakes the waiting Read, which then fails.
	stopClosing := context.AfterFunc(ctx, func() { queue.Close() })
	go func() {
		defer stopClosing()
		defer queue.Close()
		var gone bool
		if raw.Read(func(fd uintptr) bool {
			events := make([]unix.Kevent_t, 1)
			n, err := ignoringEINTR(func() (int, error) { return unix.Kevent(int(fd), nil, events, &unix.Timespec{}) })
			gone = err == nil && n > 0
			return gone || err != nil // else: wait until readable
		}) == nil && gone {
			close(exited)
		}
	}()
	return exited
}
