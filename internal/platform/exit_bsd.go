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
	// Kevent fails with ESRCH when pid is gone.
	if _, err := unix.Kevent(kq, []unix.Kevent_t{ev}, nil, nil); err != nil || unix.SetNonblock(kq, true) != nil {
		unix.Close(kq)
		return nil
	}
	return whenReadable(ctx, os.NewFile(uintptr(kq), "kqueue"), func(fd int) (bool, error) {
		events := make([]unix.Kevent_t, 1)
		n, err := ignoringEINTR(func() (int, error) { return unix.Kevent(fd, nil, events, &unix.Timespec{}) })
		return err == nil && n > 0, err
	})
}
