package session

import (
	"errors"
	"io"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/human"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// Waiting is what a call may wait for before its command is typed: the
// terminal to be free (--wait-free) and the human's approval (ptybridge
// --confirm).
type Waiting struct {
	// WaitFree is how long to wait for the terminal to be free instead of
	// refusing at once (exit 75); zero refuses at once.
	WaitFree time.Duration
	// approved: the human said yes to this command.
	approved bool
}

// Send runs the request's command in the shared pane and returns its exit
// status, or an *Error. When the terminal is busy with something of the
// human's it refuses, or with WaitFree waits for it to be free and tries
// again; with ptybridge --confirm the human approves the command first.
func Send(req Request) (int, error) {
	w := pane.NewFreeWaiter(req.Bridge, req.WaitFree, req.Stderr)
	for {
		status, err := send(req)
		switch {
		case err == errApproved:
			req.approved = true
		case !w.Again(err):
			return status, w.Final(err)
		}
	}
}

// errApproved: the human said yes. The call starts over, looks at the
// pane again (the human may have done something meanwhile) and types it.
var errApproved = errors.New("approved by the user")

// approve asks the human, when the session wants it, whether to run the
// command; the pane is free (but for copy mode, which is looked at
// first: no question for a command that would be refused anyway).
func (req Request) approve(rc *relay.Client) error {
	if req.approved || !bridge.ConfirmRequired(rc.SocketPath()) {
		return nil
	}
	if req.Bridge.InCopyMode() {
		return pane.CopyModeError
	}
	// The stream goes on while the human thinks: read it, so that the
	// relay never waits for this call. It ends when the call closes rc.
	go io.Copy(io.Discard, rc)
	q := human.Question{Action: "run this in the shared terminal", Text: req.Command}
	if err := human.Ask(req.Bridge, q, req.Bridge.Exe, req.MaxTime); err != nil {
		return err
	}
	return errApproved
}
