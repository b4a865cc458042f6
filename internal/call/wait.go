package call

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// transport is how a command gets to a shell and back: local or far.
type transport interface {
	// start types the command (or returns ErrMoved), watches its shell
	// in c.exit and pumps the stream to done.
	start(done chan<- streamEnd) error
	// question is what the terminal asks while the command waits for the
	// human, else ""; a line break (answered) ends a question.
	question() string
	answered()
	// stopped hears that an interrupt took: the shell is at its prompt (asked once per interrupt).
	stopped() <-chan struct{}
	// holdsTerminal closes once the command's program, if it runs one, has the terminal from the
	// shell: a Ctrl-C before that reaches the shell, not the program (or with START: unknown).
	holdsTerminal() <-chan struct{}
	shellEnded() error
	finish()
}

// streamEnd is how a command's stream ended: END with the status, or an error (relay.ErrHungUp).
type streamEnd struct {
	status int
	err    error
}

// Interrupt keys, typed into the terminal's input, where the line discipline turns them into SIGINT
// and SIGQUIT whatever tmux shows (copy mode would take them from send-keys).
const (
	CtrlC         = "\x03"
	CtrlBackslash = "\x1c"
)

const (
	// KillGrace is how long each phase of the two-phase kill (Ctrl-C, then Ctrl-\) waits.
	KillGrace = 3 * time.Second
	// drainGrace is how long a call waits, once the shell is gone, for
	// the stream to bring what the shell wrote before it ended.
	drainGrace = 200 * time.Millisecond
	// Looks for a command that waits for the human: the first soon after the output stops (a
	// question is the last thing a program prints before it reads), then less and less often. The
	// human is told at once, even when they answer long before --timeout.
	firstLook = 15 * time.Millisecond
	lastGap   = 2 * time.Second
	// startGrace bounds the wait, before an interrupt, for the shell to start a typed command.
	startGrace = time.Second
)

// run types the command, waits for its end, a timeout, the shell's end or the caller going away.
func (c *Call) run(tr transport) (int, error) {
	done := make(chan streamEnd, 1)
	if err := tr.start(done); err != nil {
		tr.finish()
		return 0, err
	}
	if c.clean != nil {
		defer c.clean.Close()
	}
	noOutput := NewTimer(c.Req.Timeout)
	overall := NewTimer(Remaining(c.Start, c.Req.MaxTime))
	gap := firstLook
	look := time.NewTimer(gap) // unstopped timers are collected since Go 1.23
	for {
		select {
		case <-c.exit:
			select {
			case e := <-done: // it ended after its END marker: no matter
				return c.finish(tr, e)
			case <-time.After(drainGrace):
			}
			tr.finish()
			return 0, tr.shellEnded()
		case lineBreak := <-c.arrived:
			noOutput.Reset(c.Req.Timeout)
			gap = firstLook
			look.Reset(gap)
			if lineBreak {
				c.asked = false
				tr.answered()
			}
		case e := <-done:
			return c.finish(tr, e)
		case <-look.C:
			c.waitingOn(tr)
			gap = min(4*gap, lastGap)
			look.Reset(gap)
		case <-noOutput.C():
			// Decided now, however short the timeout: a command waiting for the human is not hung.
			if c.waitingOn(tr) {
				noOutput.Reset(c.Req.Timeout)
				continue
			}
			return c.interrupt(tr, done, failure.ExitTimeout, fmt.Sprintf("no output for %v (--timeout)", c.Req.Timeout),
				"if the command is slow but quiet, rerun it with a larger --timeout, e.g. --timeout 60")
		case <-overall.C():
			return c.interrupt(tr, done, failure.ExitTimeout, fmt.Sprintf("the command ran longer than %v (--max-time)", c.Req.MaxTime),
				"if it needs longer, rerun it with a larger --max-time, or run it in the background and poll")
		case <-c.Ctx.Done():
			if e, ended := c.awaitStart(tr, done); ended {
				return c.finish(tr, e)
			}
			code, why := failure.Stopped(c.Ctx) // says how it was interrupted, or that it still runs
			return c.interrupt(tr, done, code, why, failure.StoppedHint)
		}
	}
}

// waitingOn says whether the command waits for the human: a question, or a full-screen program
// (the alternate screen), which the human uses there; its rows are no questions.
func (c *Call) waitingOn(tr transport) bool {
	if !c.fullScreen.Load() {
		if q := tr.question(); q != "" || !c.fullScreen.Load() { // a look may find one (questions)
			return c.waiting(q)
		}
	}
	if !c.toldFullScreen {
		c.toldFullScreen = true
		io.WriteString(c.Req.Notes, fullScreenNote)
	}
	return true
}

const fullScreenNote = "ptysend: note: a full-screen program runs in the shared terminal: the user can use it there, " +
	"and its screens are no output (--timeout is paused while it runs; --max-time still applies)\n" +
	"ptysend: to drive a full-screen program yourself, run it as a job: ptysend --job NAME -- CMD, " +
	"then --job-keys NAME -- KEYS and --job-screen NAME\n"

// waiting says on stderr, once per question q ("": none), that the command waits for the human.
func (c *Call) waiting(q string) bool {
	if q != "" && !c.asked {
		c.asked = true
		fmt.Fprintf(c.Req.Notes, "ptysend: the terminal asks: %q\n"+
			"ptysend: the user must answer it in the ptybridge terminal: ask them to; "+
			"--timeout is paused while it waits (--max-time still applies)\n", q)
	}
	return q != ""
}

// finish reports the end of the stream: the command's status, or why it broke.
func (c *Call) finish(tr transport, e streamEnd) (int, error) {
	tr.finish()
	switch {
	case errors.Is(e.err, relay.ErrHungUp):
		return 0, c.B.Closed(true)
	case e.err != nil:
		return 0, &failure.Error{Msg: "writing the output: " + e.err.Error(), Hint: "make sure ptysend's standard output can be written"}
	}
	if e.status != 0 && c.emptyStdin.Load() {
		io.WriteString(c.Req.Notes, emptyStdinNote)
	}
	return e.status, nil
}

// awaitStart waits, before a stop interrupts the command, for the shell to have started it (START)
// and handed it the terminal, or for its end: a Ctrl-C while the shell still reads the typed line
// would cut the line, not the command, and could leave the rest of the line at the human's
// prompt; one while the shell forks the program would reach the shell only.
func (c *Call) awaitStart(tr transport, done <-chan streamEnd) (e streamEnd, ended bool) {
	grace := time.After(startGrace)
	for _, step := range []func() <-chan struct{}{func() <-chan struct{} { return c.started }, tr.holdsTerminal} {
		select {
		case <-step():
		case e = <-done:
			return e, true
		case <-c.exit:
			return streamEnd{}, false
		case <-grace:
			return streamEnd{}, false
		}
	}
	return streamEnd{}, false
}

// interrupt runs the two-phase kill (Ctrl-C, then Ctrl-\ KillGrace later); it ends in code (a
// timeout's, or a stop's).
func (c *Call) interrupt(tr transport, done <-chan streamEnd, code int, why, hint string) (int, error) {
	how := "interrupted it with Ctrl-C"
	c.out.hold()
	c.T.Type(CtrlC)
	atPrompt := tr.stopped()
	stopped, e := waitStopped(atPrompt, done)
	if !stopped {
		how = "it ignored Ctrl-C, so it was sent Ctrl-\\ (SIGQUIT)"
		c.T.Type(CtrlBackslash)
		stopped, e = waitStopped(atPrompt, done)
	}
	if stopped && e == nil {
		c.out.awaitEcho(drainGrace)
	}
	c.out.release(e != nil && e.err == nil)
	tr.finish()
	if e != nil && errors.Is(e.err, relay.ErrHungUp) {
		return 0, c.B.Closed(true)
	}
	if !stopped {
		how += "; it is still running in the shared terminal"
		hint = "ask the user to stop the command in the ptybridge terminal before you run anything else"
	}
	return code, &failure.Error{Code: code, Msg: why + ": " + how, Hint: hint}
}

// waitStopped waits up to KillGrace for END, or the shell at its prompt (it drops the line's rest).
func waitStopped(atPrompt <-chan struct{}, done <-chan streamEnd) (bool, *streamEnd) {
	select {
	case e := <-done:
		return true, &e
	case <-atPrompt:
		return true, nil
	case <-time.After(KillGrace):
		return false, nil
	}
}

// pump feeds the stream, first what was read of it already, to w (the extractor, or a far call's
// stream in front of it) until END or hang-up.
func (c *Call) pump(ext *markers.Extractor, w io.Writer, first []byte) streamEnd {
	in := io.MultiReader(bytes.NewReader(first), c.T)
	buf := make([]byte, 64<<10)
	var seen cleantext.Modes
	for {
		n, err := in.Read(buf)
		if n > 0 {
			wasStarted := ext.Started()
			if _, err := w.Write(buf[:n]); err != nil {
				return streamEnd{err: err}
			}
			if !wasStarted && ext.Started() {
				close(c.started)
			}
			if ext.Started() { // does a full-screen program show?
				seen.Write(buf[:n])
				if alt := seen.Alternate(); alt != cleantext.Unknown {
					c.fullScreen.Store(alt == cleantext.On)
				}
			}
			tellArrived(c.arrived, buf[:n])
			if ext.Done() {
				if err := c.answers.Flush(); err != nil {
					return streamEnd{err: err}
				}
				return streamEnd{status: ext.Status()}
			}
		}
		if err != nil {
			return streamEnd{err: err}
		}
	}
}

// Timer never fires when its duration is zero: a call's no-output and overall timeouts.
type Timer struct{ t *time.Timer }

func NewTimer(d time.Duration) *Timer {
	if d <= 0 {
		return &Timer{}
	}
	return &Timer{time.NewTimer(d)}
}

// C fires when the time is up; nil (never) for a zero timer.
func (t *Timer) C() <-chan time.Time {
	if t.t == nil {
		return nil
	}
	return t.t.C
}

// Reset starts the timer over with d (a zero timer stays zero).
func (t *Timer) Reset(d time.Duration) {
	if t.t != nil {
		t.t.Reset(d)
	}
}

// Remaining is what is left of limit since start: zero when there is no
// limit, never zero (so never "no limit") once it has passed.
func Remaining(start time.Time, limit time.Duration) time.Duration {
	if limit <= 0 {
		return 0
	}
	return max(time.Until(start.Add(limit)), time.Nanosecond)
}
