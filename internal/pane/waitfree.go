package pane

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// --wait-free: instead of refusing because of what the human is doing
// (exit 75), a call waits for the terminal to be free and then runs. A
// call makes its attempt as always, so a free terminal costs nothing
// extra; only after a refusal does a FreeWaiter wait, without holding the
// pane, until the pane may have changed, and the call tries again:
//
//   - a program in the way (less, vim, a long command): until it exits,
//     which the kernel says at once, or another one takes the foreground
//     (looked at every recheck: Ctrl-Z stops a program without ending it);
//   - copy mode: until the bridge's record of it says it ended;
//   - anything else (a half-typed line, shell code of the human's, a busy
//     REPL): recheck. Such an attempt itself follows the shell's events in
//     the stream for up to settleLimit before it refuses again.
const recheck = 100 * time.Millisecond

type FreeWaiter struct {
	bridge   bridge.Bridge
	limit    time.Duration
	deadline time.Time
	stderr   io.Writer
	said     map[string]bool
}

// NewFreeWaiter waits up to limit from now (--wait-free; zero: never),
// saying on stderr what for.
func NewFreeWaiter(b bridge.Bridge, limit time.Duration, stderr io.Writer) *FreeWaiter {
	return &FreeWaiter{bridge: b, limit: limit, deadline: time.Now().Add(limit), stderr: stderr, said: map[string]bool{}}
}

// Again is called after an attempt that typed nothing, with its error
// and the state the refusal came from (or nil). When err is a refusal
// that can clear by itself and the time is not up, it says what it waits
// for (once for each reason), waits until the pane may have changed, and
// reports whether to try again.
func (w *FreeWaiter) Again(ctx context.Context, st *State, err error) bool {
	if w.limit <= 0 || err == nil || failure.From(err).Code != failure.ExitBusy || !time.Now().Before(w.deadline) || ctx.Err() != nil {
		return false
	}
	if msg := failure.From(err).Msg; !w.said[msg] {
		w.said[msg] = true
		fmt.Fprintf(w.stderr, "ptysend: waiting up to %v (--wait-free) for the shared terminal to be free: %s\n", w.limit, msg)
	}
	w.wait(ctx, st)
	return time.Now().Before(w.deadline) && ctx.Err() == nil
}

// Final is the error to report once Again said no: a refusal says that
// it still stood after waiting, or that the call could have waited.
func (w *FreeWaiter) Final(err error) error {
	if err == nil || failure.From(err).Code != failure.ExitBusy {
		return err
	}
	refusal := *failure.From(err)
	if w.limit > 0 {
		refusal.Msg += fmt.Sprintf(" (still so after waiting %v with --wait-free)", w.limit)
	} else if refusal.Hint != "" {
		refusal.Hint += "; or rerun with --wait-free DURATION (e.g. --wait-free 2m) to have ptysend wait for it"
	}
	return &refusal
}

func (w *FreeWaiter) wait(ctx context.Context, st *State) {
	ctx, cancel := context.WithDeadline(ctx, w.deadline)
	defer cancel()
	tick := time.NewTicker(recheck)
	defer tick.Stop()
	var ended <-chan struct{}
	if st != nil && st.Kind == Busy && st.Far == nil && (st.Shell == nil || st.Shell.PID != st.Foreground.PID) {
		ended = platform.WatchExit(ctx, st.Foreground.PID)
	}
	for {
		select {
		case <-ended:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		switch {
		case st != nil && st.CopyMode:
			if !w.bridge.InCopyMode(st.View.PaneID) {
				return
			}
		case ended != nil:
			if fg, err := platform.ForegroundPID(st.View.PanePID); err != nil || fg != st.Foreground.PID {
				return
			}
		default:
			return
		}
	}
}
