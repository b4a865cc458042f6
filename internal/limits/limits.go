// Package limits holds the time limits of one ptysend call: the
// no-output and overall timeouts, the grace of each phase of the
// two-phase kill, and the signals and the cancellation that stop a call
// early. It only keeps time; what is interrupted, and how, is its
// callers' business.
package limits

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/failure"
)

// KillGrace is how long each phase of the two-phase kill waits for the
// command to stop: Ctrl-C, then Ctrl-\.
const KillGrace = 3 * time.Second

// Remaining is what is left of limit since start: zero when there is no
// limit, never zero (so never "no limit") once it has passed.
func Remaining(start time.Time, limit time.Duration) time.Duration {
	if limit <= 0 {
		return 0
	}
	if left := time.Until(start.Add(limit)); left > 0 {
		return left
	}
	return time.Nanosecond
}

// Timer is a timer that never fires when its duration is zero.
type Timer struct{ t *time.Timer }

// NewTimer starts a Timer; d <= 0 means never.
func NewTimer(d time.Duration) *Timer {
	if d <= 0 {
		return &Timer{}
	}
	return &Timer{time.NewTimer(d)}
}

// C fires when the time is up; nil (never) for a zero timer.
func (o *Timer) C() <-chan time.Time {
	if o.t == nil {
		return nil
	}
	return o.t.C
}

// Reset starts the timer over with d (a zero timer stays zero).
func (o *Timer) Reset(d time.Duration) {
	if o.t != nil {
		o.t.Reset(d)
	}
}

// StopSignals are the signals that stop ptysend itself: the command or
// evaluation is interrupted first.
var StopSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}

// NotifyStop delivers StopSignals on the channel until stop is called.
func NotifyStop() (signals chan os.Signal, stop func()) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, StopSignals...)
	return c, func() { signal.Stop(c) }
}

// Cancelled reports whether cancel is closed: the caller gave the call up
// (a cancelled MCP request). A nil channel is never closed.
func Cancelled(cancel <-chan struct{}) bool {
	select {
	case <-cancel:
		return true
	default:
		return false
	}
}

// ErrCancelled is a call cancelled before it typed anything.
var ErrCancelled = &failure.Error{
	Msg:  "the call was cancelled before its turn at the shared terminal; nothing was typed",
	Hint: "run it again if you still need it",
}
