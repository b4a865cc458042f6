package session

import (
	"time"

	"github.com/ptybridge/ptybridge/internal/pane"
)

// Waiting is what a call may wait for before its command is typed: the
// terminal to be free (--wait-free).
type Waiting struct {
	// WaitFree is how long to wait for the terminal to be free instead of
	// refusing at once (exit 75); zero refuses at once.
	WaitFree time.Duration
}

// Send runs the request's command in the shared pane and returns its exit
// status, or an *Error. When the terminal is busy with something of the
// human's it refuses, or with WaitFree waits for it to be free and tries
// again.
func Send(req Request) (int, error) {
	w := pane.NewFreeWaiter(req.Bridge, req.WaitFree, req.Stderr)
	for {
		status, err := send(req)
		if !w.Again(err) {
			return status, w.Final(err)
		}
	}
}
