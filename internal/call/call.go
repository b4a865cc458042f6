// Package call runs one command of the agent's in the shared pane, as `ptysend -- WORDS` does, from
// its turn at the pane to its exit status: the look (internal/pane decides), the human's approval
// under --confirm, the timeouts, the two-phase kill, cancellation, and a shell the command ended.
// The local transport sources a wrapper script from the runtime directory (stderr through a fifo,
// the shell read in the process table); the far one types it to a shell behind ssh, su or docker
// (stderr in frames of the stream). internal/repl runs a REPL on the same Call. SetUpShell, for
// ptybridge, installs the hooks in a new bridge's shell the same way, before the human can type.
package call

import (
	"cmp"
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/human"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// Request is one command of the agent's.
type Request struct {
	Command string
	// Typed is the call as typed, for the calls queued behind it ("make test", "--repl-eval 1 + 1").
	Typed string
	// Timeout is the no-output timeout, MaxTime the overall one; zero disables either.
	Timeout, MaxTime time.Duration
	// Stdin is forwarded when it carries data (ForwardsStdin); otherwise the command reads the shared terminal.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Notes gets ptysend's own notes (what the terminal asks, a wait for the turn); nil: Stderr.
	// The CLI prints both on its stderr; the MCP server keeps them apart from the command's.
	Notes io.Writer
	// Raw passes the terminal output on byte for byte, not cleaned into what a pipe carries (cleantext).
	Raw bool
	// WaitFree is how long to wait for a busy terminal to be free, not refuse at once (exit 75).
	WaitFree time.Duration
	// StopsCaught, when set, closes once the signals that stop the call (ptysend's SIGINT...)
	// are caught: nothing is typed before, so that a stop can always interrupt what was typed.
	StopsCaught <-chan struct{}
	// farStdin is read once: a call that looks again (ErrMoved) forwards the same.
	farStdin func() ([]byte, error)
}

// Run runs the request's command in the shared pane and returns its exit status, or an error that
// says what to do (internal/failure). ctx stops it as a Ctrl-C at the agent's end would: the
// command is interrupted; a call that has not typed yet types nothing.
func Run(ctx context.Context, b bridge.Bridge, req Request) (int, error) {
	q := &human.Question{Action: "run this in the shared terminal", Text: req.Command}
	return Do(ctx, b, req, pane.IntoShell, q, func(c *Call, st *pane.State) (int, error) {
		if st.Far != nil {
			return c.run(newFar(c, st.Far))
		}
		return c.run(newLocal(c, *st.Shell))
	})
}

// Do is the pipeline of every mode that types into the pane: a turn, a look (pane.Look), the
// human's approval of q under ptybridge --confirm (nil: none asked), then body, which types. A
// refusal that clears by itself is waited out with req.WaitFree; body's ErrMoved looks again.
func Do(ctx context.Context, b bridge.Bridge, req Request, want pane.Want, q *human.Question,
	body func(c *Call, st *pane.State) (int, error)) (int, error) {
	req.Stderr, req.Notes = lockedPair(req.Stderr, req.Notes)
	req.farStdin = sync.OnceValues(func() ([]byte, error) { return readFarStdin(req.Stdin) })
	start := time.Now()
	w := pane.NewFreeWaiter(b, req.WaitFree, req.Notes)
	for {
		status, st, err := attempt(ctx, b, req, start, want, q, body)
		if err == errApproved {
			q = nil
		} else if !w.Again(ctx, st, err) {
			return status, w.Final(err)
		}
	}
}

// errApproved: the human said yes; the call starts over with a new look (they may have acted meanwhile).
var errApproved = errors.New("approved by the user")

// maxLooks bounds one attempt's looks: each after the first follows output that came meanwhile.
const maxLooks = 20

// attempt returns body's outcome, or the refusal and the state it came from.
func attempt(ctx context.Context, b bridge.Bridge, req Request, start time.Time, want pane.Want, q *human.Question,
	body func(c *Call, st *pane.State) (int, error)) (int, *pane.State, error) {
	t, err := b.Turn(ctx, req.Typed, req.MaxTime, start, req.Notes)
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
		if q != nil && bridge.ConfirmRequired(t.Path) {
			return 0, st, approve(ctx, t, b, *q, req.MaxTime)
		}
		c := &Call{B: b, T: t, Req: req, Start: start, out: &gate{w: req.Stdout}, arrived: make(chan bool, 1),
			started: make(chan struct{})}
		c.answers = &cleantext.AnswerEchoes{W: c.out}
		c.Ctx, c.end = context.WithCancel(ctx)
		if !req.Raw {
			c.clean = cleantext.NewWriter(req.Stdout)
			c.out.w = c.clean
		}
		status, err := body(c, st)
		c.end()
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

// approve asks the human, in a popup over their terminal, whether to go on (errApproved: yes). The
// stream is read meanwhile: the relay never waits for a call.
func approve(ctx context.Context, t *relay.Turn, b bridge.Bridge, q human.Question, limit time.Duration) error {
	drained := make(chan struct{})
	go func() { io.Copy(io.Discard, t); close(drained) }()
	err := human.Ask(ctx, b, q, limit)
	t.Close() // ends the copy; the attempt starts over on a new turn
	<-drained
	return cmp.Or(err, errApproved)
}

// ErrMoved: the stream moved between the look and the typing (TypeIf); nothing was typed.
var ErrMoved = errors.New("the stream moved since the look")

// Call is one call's run in the pane, once its turn came: what every transport, and a REPL, shares.
type Call struct {
	// Ctx ends too when the body returns: the watches started on it stop.
	Ctx   context.Context
	end   context.CancelFunc
	B     bridge.Bridge
	T     *relay.Turn
	Req   Request
	Start time.Time
	out   *gate
	clean *cleantext.Writer // stdout's clean-text writer; nil with Raw
	// answers takes the echo of the terminal's answers out of the output (the extractor's Out),
	// and knows whether the output asked the terminal anything.
	answers *cleantext.AnswerEchoes
	// fullScreen: the command's output is on the alternate screen, a full-screen program's (pump).
	fullScreen atomic.Bool
	// toldFullScreen: the note that a full-screen program runs was given.
	toldFullScreen bool
	arrived        chan bool       // output came; true when it held a line break
	started        chan struct{}   // closed once the START marker was seen
	exit           <-chan struct{} // closed when the command's shell ends (exit, exec...)
	asked          bool            // the human was told of the question (waiting)
	// emptyStdin: the forwarded stdin was a pipe that brought nothing.
	emptyStdin atomic.Bool
}

// EchoRows is how many rows the echo of line takes in the terminal at tty, typed at the prompt
// where the stream leaves the cursor (markers.Job.EraseRows).
func (c *Call) EchoRows(line, tty string) int {
	return markers.EchoRows(c.T.Column, utf8.RuneCountInString(line), platform.Columns(tty))
}

// TypeIf types keys if the stream is still where the look saw it, else returns ErrMoved.
func (c *Call) TypeIf(keys string) error {
	if c.Req.StopsCaught != nil {
		<-c.Req.StopsCaught
	}
	if c.Ctx.Err() != nil { // stopped before anything was typed: nothing is
		code, why := failure.Stopped(c.Ctx)
		return &failure.Error{Code: code, Msg: why + "; nothing was typed", Hint: failure.StoppedHint}
	}
	if typed, err := c.T.TypeIf(keys); err != nil {
		return c.B.Closed(false)
	} else if !typed {
		return ErrMoved
	}
	return nil
}
