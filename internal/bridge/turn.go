package bridge

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/limits"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/rundir"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// NoBridgeMessage is what ptysend prints when no bridge is running.
const NoBridgeMessage = "Error: No PTY bridge session is running.\n" +
	"\n" +
	"You have used `ptysend`, but it currently has nowhere to send to.\n" +
	"\n" +
	"The user needs to start the interactive backing terminal using `ptybridge`.\n" +
	"Do not try this yourself - instead, ask the user to do it for you.\n" +
	"\n" +
	"This is necessary for *interactive* commands - for example, sudo (requiring\n" +
	"a password prompt). If you can avoid interactive tools, then prefer that.\n" +
	"Otherwise, please ask the user now.\n"

// connect reaches the bridge's relay, repairing it when it died.
func connect(b Bridge) (*relay.Client, error) {
	rc, err := relay.Dial(b.SocketPath())
	if err == nil {
		return rc, nil
	}
	path, err := b.ensureRelay()
	if errors.Is(err, tmux.ErrNoTmux) {
		return nil, &failure.Error{Verbatim: NoBridgeMessage}
	}
	if errors.Is(err, errNoSession) {
		return nil, b.missingError()
	}
	if err != nil {
		return nil, failure.From(err)
	}
	rc, err = relay.Dial(path)
	if err != nil {
		return nil, failure.From(err)
	}
	return rc, nil
}

// Turn reaches the relay and waits for this call's turn. A relay of
// another protocol version (an older ptybridge's) is replaced once.
func (b Bridge) Turn(maxTime time.Duration, stderr io.Writer, start time.Time) (*relay.Client, error) {
	if err := rundir.Ensure(b.RuntimeDir); err != nil {
		return nil, failure.From(err)
	}
	for retried := false; ; retried = true {
		rc, err := connect(b)
		if err != nil {
			return nil, err
		}
		err = waitForTurn(rc, b, maxTime, stderr, start)
		if err == nil {
			if b.Call != "" {
				rc.Declare(shortCall(b.Call))
			}
			return rc, nil
		}
		rc.Close()
		switch {
		case retried:
		case errors.Is(err, relay.ErrVersion):
			if _, err := b.replaceRelay(); err != nil {
				return nil, failure.From(err)
			}
			continue
		case errors.Is(err, errRelayHungUp):
			// It died as we came: connect again, and repair if need be.
			continue
		}
		if errors.Is(err, errRelayHungUp) {
			return nil, b.Closed(false)
		}
		return nil, failure.From(err)
	}
}

// errRelayHungUp means the relay closed the connection before our turn.
var errRelayHungUp = errors.New("the relay hung up")

// waitForTurn waits while earlier calls use the pane, within --max-time.
// When it has to wait, the relay says at once behind what, and so does
// this call, on stderr (queued.go).
func waitForTurn(rc *relay.Client, b Bridge, maxTime time.Duration, stderr io.Writer, start time.Time) error {
	deadline := time.Time{}
	if maxTime > 0 {
		deadline = start.Add(maxTime)
	}
	var waits waitNotices
	err := rc.WaitTurn(deadline, func(q relay.Queued) { waits.tell(stderr, q) })
	switch {
	case err == nil, errors.Is(err, relay.ErrVersion):
		return err
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return errRelayHungUp
	case errors.Is(err, os.ErrDeadlineExceeded):
		return &failure.Error{
			Code: failure.ExitTimeout,
			Msg:  fmt.Sprintf("--max-time %v passed while %s was using the shared terminal; nothing was run", maxTime, waits.holder()),
			Hint: "wait for the other call to finish, or retry with a larger --max-time",
		}
	}
	return b.Closed(false)
}

// Closed explains a relay that hung up.
func (b Bridge) Closed(running bool) error {
	what := "the bridge terminal was closed"
	if running {
		what += " while the command was running"
	}
	if _, err := tmux.Run("has-session", "-t", b.target()); err == nil {
		return &failure.Error{
			Msg:  "lost the output stream of the shared terminal (its relay stopped)",
			Hint: "retry the command; if it happens again, ask the user to restart ptybridge",
		}
	}
	return &failure.Error{
		Msg:  what,
		Hint: "ask the user to restart ptybridge in a terminal, then rerun the command (the shell's state, such as cd and variables, is gone)",
	}
}

// TurnUnlessCancelled is Turn for a call that can be cancelled while it
// waits (MCP): once its turn comes, a cancelled call gives it back at
// once, having typed nothing.
func (b Bridge) TurnUnlessCancelled(maxTime time.Duration, stderr io.Writer, start time.Time, cancel <-chan struct{}) (*relay.Client, error) {
	rc, err := b.Turn(maxTime, stderr, start)
	if err != nil {
		return nil, err
	}
	if limits.Cancelled(cancel) {
		rc.Close()
		return nil, limits.ErrCancelled
	}
	return rc, nil
}
