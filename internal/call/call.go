// Package call runs one command of the agent's in the shared pane, as
// `ptysend -- WORDS` does, from its turn at the pane to its exit status.
// One call type owns what every call shares: the look at the pane before
// anything is typed (internal/pane decides), the human's approval under
// ptybridge --confirm, the no-output and overall timeouts, the two-phase
// kill, cancellation, the exit status, and a shell that the command
// ended. Two transports carry the command: local (a wrapper script in
// the private runtime directory, its stderr through a fifo, the shell
// read in the OS's process table) and far (the wrapper typed through the
// terminal to a shell behind ssh, su or docker, its stderr in frames of
// the stream). internal/repl runs a REPL on the same call type.
package call

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/human"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// Request is one command of the agent's.
type Request struct {
	Command string
	// Typed is the call as the agent typed it, for the calls queued
	// behind it ("make test", "--repl-eval 1 + 1").
	Typed string
	// Timeout is the no-output timeout; MaxTime the overall one. Zero
	// disables either.
	Timeout, MaxTime time.Duration
	// Stdin is forwarded to the command, unless it is nil or a terminal:
	// then the command reads the shared terminal.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Raw passes the command's terminal output on byte for byte; else it
	// is cleaned into the text a pipe would have carried (cleantext).
	Raw bool
	// WaitFree is how long to wait for the terminal to be free instead of
	// refusing at once (exit 75); zero refuses at once.
	WaitFree time.Duration
	farStdin *farStdin
}

// Run runs the request's command in the shared pane and returns its exit
// status, or an error that says what to do (internal/failure). When the
// terminal is busy with something of the human's it refuses, or with
// WaitFree waits for it to be free and tries again. ctx stops it as a
// Ctrl-C at the agent's end would: the command is interrupted, and a
// call that has not typed yet types nothing (failure.Stopped says with
// which status).
func Run(ctx context.Context, b bridge.Bridge, req Request) (int, error) {
	q := &human.Question{Action: "run this in the shared terminal", Text: req.Command}
	req.farStdin = &farStdin{}
	return Do(ctx, b, req, pane.IntoShell, q, func(c *Call, st *pane.State) (int, error) {
		var tr transport
		var err error
		if st.Far != nil {
			tr, err = newFar(c, st)
		} else {
			tr, err = newLocal(c, st)
		}
		if err != nil {
			return 0, err
		}
		return c.run(tr)
	})
}

// Do is the pipeline of every mode that types into the pane: a turn at
// the pane, a look at it (pane.Look: what the agent wants to type into),
// the human's approval of q under ptybridge --confirm (nil: none asked),
// then body, which types. A refusal that clears by itself is waited out
// with req.WaitFree. body returns ErrMoved when the stream moved since
// the look (it typed nothing): the pane is looked at again.
func Do(ctx context.Context, b bridge.Bridge, req Request, want pane.Want, q *human.Question,
	body func(c *Call, st *pane.State) (int, error)) (int, error) {
	req.Stderr = &lockedWriter{w: req.Stderr}
	start := time.Now()
	w := pane.NewFreeWaiter(b, req.WaitFree, req.Stderr)
	approved := q == nil
	for {
		status, st, err := attempt(ctx, b, req, start, want, q, &approved, body)
		if err != errApproved && !w.Again(ctx, st, err) {
			return status, w.Final(err)
		}
	}
}

// errApproved: the human said yes. The call starts over, looks at the
// pane again (the human may have done something meanwhile) and types it.
var errApproved = errors.New("approved by the user")

// maxLooks bounds the looks of one attempt: each one after the first
// follows output that came while the last one decided.
const maxLooks = 20

// attempt makes one attempt: a turn, a look, and body; or the refusal,
// with the state it came from.
func attempt(ctx context.Context, b bridge.Bridge, req Request, start time.Time, want pane.Want, q *human.Question, approved *bool,
	body func(c *Call, st *pane.State) (int, error)) (int, *pane.State, error) {
	t, err := b.Turn(ctx, req.Typed, req.MaxTime, start, req.Stderr)
	if err != nil {
		return 0, nil, err
	}
	defer t.Close()
	for range maxLooks {
		st, err := pane.Look(t, b, want)
		if err == nil {
			err = st.Refusal
		}
		if err != nil {
			return 0, st, err
		}
		if !*approved && bridge.ConfirmRequired(t.Path) {
			err := approve(ctx, t, b, *q, req.MaxTime)
			if err == nil {
				*approved, err = true, errApproved
			}
			return 0, st, err
		}
		status, err := body(newCall(ctx, b, t, req, start), st)
		if err != ErrMoved {
			return status, st, err
		}
	}
	return 0, nil, &failure.Error{
		Code: failure.ExitBusy,
		Msg:  "the shared terminal kept printing while ptysend looked at it, so nothing was typed",
		Hint: "retry in a moment; ask the user what prints in the ptybridge terminal",
	}
}

// approve asks the human, in a popup over their terminal, whether to go
// on (ptybridge --confirm). The stream goes on while they think: it is
// read, so that the relay never waits for this call.
func approve(ctx context.Context, t *relay.Turn, b bridge.Bridge, q human.Question, limit time.Duration) error {
	drained := make(chan struct{})
	go func() { io.Copy(io.Discard, t); close(drained) }()
	err := human.Ask(ctx, b, q, limit)
	t.Close() // ends the copy; the attempt starts over on a new turn
	<-drained
	return err
}

// ErrMoved: the stream moved between the look and the typing (TypeIf):
// the pane is looked at again before anything is typed.
var ErrMoved = errors.New("the stream moved since the look")

// Call is one call's run in the pane, once its turn came: what every
// transport, and a REPL's run, shares.
type Call struct {
	Ctx   context.Context
	B     bridge.Bridge
	T     *relay.Turn
	Req   Request
	Start time.Time
	out   *gate
	clean *cleantext.Writer // stdout's clean-text writer; nil with Raw
	// arrived hears that output came; true when it held a line break.
	arrived chan bool
}

func newCall(ctx context.Context, b bridge.Bridge, t *relay.Turn, req Request, start time.Time) *Call {
	c := &Call{Ctx: ctx, B: b, T: t, Req: req, Start: start, arrived: make(chan bool, 1)}
	if !req.Raw {
		c.clean = cleantext.NewWriter(req.Stdout)
		c.out = &gate{w: c.clean}
	} else {
		c.out = &gate{w: req.Stdout}
	}
	return c
}

// transport is how a command gets to a shell and back: local or far.
type transport interface {
	// start types the command (errMoved when the stream moved since the
	// look: nothing was typed) and starts feeding the stream; done hears
	// its end.
	start(done chan<- streamEnd) error
	// waitsForHuman reports whether the command waits for the human to
	// answer the terminal, saying so on stderr once per question.
	waitsForHuman() bool
	// answered: a line break came, which ends a question.
	answered()
	// stopped hears that an interrupt took: the shell is back at its
	// prompt; nil when only the stream's end can tell.
	stopped() <-chan struct{}
	// gone is closed when the shell the command runs in ends (exit,
	// exec...), and shellEnded says what that means.
	gone() <-chan struct{}
	shellEnded() error
	// finish releases what the transport holds, once the stream ended.
	finish(ended *streamEnd)
}

// streamEnd is how the stream of a command ended: its END marker with
// the status, or an error (ErrHungUp: the pane went).
type streamEnd struct {
	status int
	err    error
}

// run types the command and waits for it.
func (c *Call) run(tr transport) (int, error) {
	done := make(chan streamEnd, 1)
	if err := tr.start(done); err != nil {
		tr.finish(nil)
		return 0, err
	}
	status, err := c.wait(tr, done)
	if c.clean != nil {
		c.clean.Close()
	}
	return status, err
}

// wait waits for the command's end, a timeout, the shell's end or the
// caller going away, and turns each into the call's outcome.
func (c *Call) wait(tr transport, done <-chan streamEnd) (int, error) {
	noOutput := NewTimer(c.Req.Timeout)
	overall := NewTimer(Remaining(c.Start, c.Req.MaxTime))
	look := newLookTimer()
	defer noOutput.Stop()
	defer overall.Stop()
	defer look.stop()
	for {
		select {
		case <-tr.gone():
			select {
			case e := <-done: // it ended after its END marker: no matter
				return c.finish(tr, e)
			case <-time.After(drainGrace):
			}
			tr.finish(nil)
			return 0, tr.shellEnded()
		case lineBreak := <-c.arrived:
			noOutput.Reset(c.Req.Timeout)
			look.afterOutput()
			if lineBreak {
				tr.answered()
			}
		case e := <-done:
			return c.finish(tr, e)
		case <-look.c():
			tr.waitsForHuman()
			look.later()
		case <-noOutput.C():
			// Decided now, however short the timeout: a command waiting
			// for the human is not hung.
			if tr.waitsForHuman() {
				noOutput.Reset(c.Req.Timeout)
				continue
			}
			return c.interrupt(tr, done, fmt.Sprintf("no output for %v (--timeout)", c.Req.Timeout),
				"if the command is slow but quiet, rerun it with a larger --timeout, e.g. --timeout 60")
		case <-overall.C():
			return c.interrupt(tr, done, fmt.Sprintf("the command ran longer than %v (--max-time)", c.Req.MaxTime),
				"if it needs longer, rerun it with a larger --max-time, or run it in the background and poll")
		case <-c.Ctx.Done():
			code, why := failure.Stopped(c.Ctx)
			status, _ := c.interrupt(tr, done, why, "")
			if status == failure.ExitTimeout {
				status = code
			}
			return status, &failure.Error{Code: status, Msg: why + "; the command was interrupted"}
		}
	}
}

// drainGrace is how long a call waits, once the shell is gone, for the
// stream to bring what the shell wrote before it ended.
const drainGrace = 200 * time.Millisecond

// finish reports the end of the stream: the command's status, or why the
// stream broke.
func (c *Call) finish(tr transport, e streamEnd) (int, error) {
	tr.finish(&e)
	switch {
	case errors.Is(e.err, relay.ErrHungUp):
		return 0, c.B.Closed(true)
	case e.err != nil:
		return 0, &failure.Error{Msg: "writing the output: " + e.err.Error(), Hint: "make sure ptysend's standard output can be written"}
	}
	return e.status, nil
}

// Interrupt keys, typed through the relay into the terminal's input,
// where the line discipline turns them into SIGINT and SIGQUIT for the
// command, whatever tmux shows (copy mode would take them from
// send-keys).
const (
	CtrlC         = "\x03"
	CtrlBackslash = "\x1c"
)

// KillGrace is how long each phase of the two-phase kill waits for the
// command to stop: Ctrl-C, then Ctrl-\.
const KillGrace = 3 * time.Second

// interrupt runs the two-phase kill: Ctrl-C, and Ctrl-\ if the command is
// still running KillGrace later. The output so far has been streamed
// already; the call ends with failure.ExitTimeout and says what happened.
func (c *Call) interrupt(tr transport, done <-chan streamEnd, why, hint string) (int, error) {
	how := "interrupted it with Ctrl-C"
	c.out.hold()
	c.T.Type(CtrlC)
	stopped, e := waitStopped(tr, done)
	if !stopped {
		how = "it ignored Ctrl-C, so it was sent Ctrl-\\ (SIGQUIT)"
		c.T.Type(CtrlBackslash)
		stopped, e = waitStopped(tr, done)
	}
	if stopped && e == nil {
		c.out.awaitEcho(drainGrace)
	}
	c.out.release(e != nil && e.err == nil)
	tr.finish(e)
	if e != nil && errors.Is(e.err, relay.ErrHungUp) {
		return 0, c.B.Closed(true)
	}
	if !stopped {
		how += "; it is still running in the shared terminal"
		hint = "ask the user to stop the command in the ptybridge terminal before you run anything else"
	}
	return failure.ExitTimeout, &failure.Error{Code: failure.ExitTimeout, Msg: why + ": " + how, Hint: hint}
}

// waitStopped waits up to KillGrace for the command to end: its END
// marker, or (as an interrupted shell drops the rest of the line) the
// shell back at its prompt.
func waitStopped(tr transport, done <-chan streamEnd) (bool, *streamEnd) {
	deadline := time.NewTimer(KillGrace)
	defer deadline.Stop()
	select {
	case e := <-done:
		return true, &e
	case <-tr.stopped():
		return true, nil
	case <-deadline.C:
		return false, nil
	}
}
