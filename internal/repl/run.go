package repl

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/limits"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// replRun is one ptysend call's view of the REPL: the pane's stream read
// through the wrapper's extractor into a lineScreen, whose finished lines
// go through replOutput to stdout.
type replRun struct {
	req          Request
	rc           *relay.Client
	st           *replState
	start        time.Time
	prompt, cont *regexp.Regexp
	tty          *os.File
	screen       *lineScreen
	out          *replOutput
	ext          *markers.Extractor
	// streamMu is held while a chunk goes through ext into screen, so
	// that the screen, ext's held bytes and fed (the bytes of the stream
	// they have taken, from our turn on) are seen together.
	streamMu sync.Mutex
	fed      int64
	// viewed: the screen starts from the view the last call saved, so the
	// cursor line is known without asking tmux.
	viewed bool
	// promptOnly: after a Ctrl-C only the main prompt means the REPL gave
	// up the input; its continuation prompt may still show for a moment.
	promptOnly bool
	// watchStuck: after an evaluation's input, a REPL that waits for
	// input on a line that is neither prompt is reported (stuck.go).
	watchStuck bool
	stuckLook  stuckLook
	chunks     chan struct{}
	done       chan streamResult
	death      <-chan struct{}
	stopDeath  context.CancelFunc // ends the watch of death, if any
	written    int64              // the REPL's written bytes at the last look (see check)
	// cancel is the request's Cancel until it fired: a closed channel
	// would stop the wait for the prompt after the interrupt too.
	cancel <-chan struct{}
	// lastOutput is when the stream last brought bytes (UnixNano): a far
	// REPL is at its prompt when the stream has been quiet since (far.go).
	lastOutput atomic.Int64
}

func newREPLRun(req Request, rc *relay.Client, st *replState, start time.Time) *replRun {
	return newREPLRunFrom(req, rc, st, start, nil)
}

// newREPLRunFrom is newREPLRun for a stream of which pre was read already
// (a far REPL's start read it past the loader's READY).
func newREPLRunFrom(req Request, rc *relay.Client, st *replState, start time.Time, pre []byte) *replRun {
	r := &replRun{
		req: req, rc: rc, st: st, start: start,
		prompt: regexp.MustCompile(st.Prompt),
		tty:    platform.OpenTTY(st.TTY),
		out:    &replOutput{w: req.Stdout},
		chunks: make(chan struct{}, 1),
		done:   make(chan streamResult, 1),
		cancel: req.Cancel,
	}
	if st.Continuation != "" {
		r.cont = regexp.MustCompile(st.Continuation)
	}
	r.out.prompt, r.out.cont = r.prompt, r.cont
	r.screen = &lineScreen{onLine: r.out.line, paste: rc.Stream.Paste}
	r.ext = markers.NewExtractor(st.ID, r.screen)
	if st.PID == 0 {
		// --repl-start: the REPL's output starts at START, on the line
		// after the [agent] $ line.
		r.screen.restore("", 0)
	} else if st.View.startsAt(rc.Stream) {
		r.screen.restore(st.View.Cells, st.View.Col)
		r.viewed = true
	}
	if st.PID != 0 {
		// The START marker went by in an earlier call: declare it seen, so
		// the extractor passes the REPL's output on and stops at END.
		r.ext.Write([]byte(markers.Start(st.ID)))
		r.watchDeath()
	}
	if len(pre) > 0 {
		r.ext.Write(pre)
		r.fed += int64(len(pre))
		r.lastOutput.Store(time.Now().UnixNano())
	}
	go r.pump()
	return r
}

func (r *replRun) stop() {
	if r.tty != nil {
		r.tty.Close()
	}
	if r.stopDeath != nil {
		r.stopDeath()
	}
}

// watchDeath makes r.death close when the REPL's process exits. (The END
// marker normally says so too; it does not when the shell dropped the rest
// of the wrapper, e.g. after the REPL died of SIGINT.)
func (r *replRun) watchDeath() {
	if !r.st.Far { // a far REPL's death is its END marker alone
		var ctx context.Context
		ctx, r.stopDeath = context.WithCancel(context.Background())
		r.death = platform.WatchExit(ctx, r.st.PID)
	}
}

// pump feeds the stream to the extractor; r.chunks says that output came
// and nothing more is buffered, the moment to look at the prompt.
func (r *replRun) pump() {
	buf := make([]byte, 64*1024)
	for {
		n, err := r.rc.Read(buf)
		if n > 0 {
			r.streamMu.Lock()
			r.ext.Write(buf[:n])
			r.fed += int64(n)
			r.streamMu.Unlock()
			r.lastOutput.Store(time.Now().UnixNano())
			if r.ext.Done() {
				r.done <- streamResult{}
				return
			}
			if r.rc.Buffered() == 0 {
				select {
				case r.chunks <- struct{}{}:
				default:
				}
			}
		}
		if err != nil {
			r.done <- streamResult{err: io.ErrUnexpectedEOF}
			return
		}
	}
}

// streamResult is how the relay stream ended.
type streamResult struct {
	err error // nil: the END marker was seen
}

type outcomeKind int

const (
	atPrompt       outcomeKind = iota + 1
	atContinuation             // waiting for the rest of an input
	ended                      // END marker: the REPL exited, status known
	died                       // the process is gone, no END marker
	hungUp                     // the relay stream broke
	timedOut
	signalled // ptysend was stopped by a signal
	stuck     // waits for input on a line that is neither prompt (stuck.go)
)

type outcome struct {
	kind   outcomeKind
	pid    int    // atPrompt: the REPL's process
	before string // atPrompt: output on the prompt's line, before it
	status int    // ended: the shell's $? for the REPL
	line   string // stuck: the cursor line
	why    string // timedOut, signalled: what happened
	hint   string
	sig    os.Signal
}

// Backoff of the re-check while the prompt shows but the REPL is not yet
// asleep: it has just printed it, or it prints prompt-shaped text while
// still working. Only /proc is read; the cap bounds the delay.
const (
	recheckFirst = time.Millisecond
	recheckMax   = 64 * time.Millisecond
)

// waitPrompt waits until the REPL waits at its prompt (or continuation
// prompt) for input, with a no-output timeout and an overall one (zero:
// none).
func (r *replRun) waitPrompt(noOutputLimit, overallLimit time.Duration) outcome {
	noOutput, overall := limits.NewTimer(noOutputLimit), limits.NewTimer(overallLimit)
	recheck := time.NewTimer(time.Hour)
	recheck.Stop()
	backoff := recheckFirst
	signals, stopSignals := limits.NotifyStop()
	defer stopSignals()
	stuckTimer := r.newStuckTimer()
	defer stuckTimer.Stop()
	look := func(fromTimer bool) (outcome, bool) {
		o, ok, again := r.check(fromTimer)
		if again {
			recheck.Reset(backoff)
			backoff = min(2*backoff, recheckMax)
		}
		return o, ok
	}
	if o, ok := look(false); ok {
		return o
	}
	for {
		select {
		case <-r.chunks:
			noOutput.Reset(noOutputLimit)
			backoff = recheckFirst
			r.resetStuck(stuckTimer)
			if o, ok := look(false); ok {
				return o
			}
		case <-stuckTimer.C:
			if o, ok := r.lookStuck(stuckTimer); ok {
				return o
			}
		case <-recheck.C:
			if o, ok := look(true); ok {
				return o
			}
		case res := <-r.done:
			return r.streamEnd(res)
		case <-r.death:
			return r.afterDeath()
		case <-noOutput.C():
			return outcome{kind: timedOut, why: fmt.Sprintf("no output for %v (--timeout)", noOutputLimit),
				hint: "if the evaluation is slow but quiet, retry with a larger --timeout, e.g. --timeout 60; if it waits for input (input(), a debugger), ask the user"}
		case <-overall.C():
			return outcome{kind: timedOut, why: fmt.Sprintf("it ran longer than %v (--max-time)", r.req.MaxTime),
				hint: "if it needs longer, retry with a larger --max-time"}
		case s := <-signals:
			return outcome{kind: signalled, sig: s, why: "ptysend was stopped by " + s.String()}
		case <-r.cancel: // as a Ctrl-C at the caller's end
			r.cancel = nil
			return outcome{kind: signalled, sig: syscall.SIGINT, why: "the call was cancelled"}
		}
	}
}

// check looks whether the REPL is done: all typed lines echoed, the
// cursor line showing the prompt, and the REPL asleep waiting for the
// terminal. again asks for another look soon: the prompt shows but the
// REPL is not asleep yet.
//
// A look on a timer, not on new output, may see the REPL back at its
// prompt while the screen still shows an older, prompt-shaped line: what
// it wrote last is still on its way through tmux and the relay. It is
// done only if it wrote nothing since the previous look (the kernel's
// count of its written bytes); else that output will arrive and decide.
func (r *replRun) check(fromTimer bool) (o outcome, ok, again bool) {
	if !r.out.echoed() {
		return o, false, false
	}
	line, _ := r.screen.cursorLine()
	start, _ := promptIn(r.prompt, line)
	continuing := start < 0 && !r.promptOnly && r.cont != nil && r.cont.MatchString(line)
	if start < 0 && !continuing {
		return o, false, false
	}
	if r.st.Far {
		return r.checkFar(continuing, line, start)
	}
	fg, err := platform.ForegroundPID(r.rc.PanePID)
	if err != nil || fg == r.st.ShellPID {
		return o, false, false // not started yet, or exited: END will come
	}
	written, previous := platform.BytesWritten(fg), r.written
	r.written = written
	if !platform.WaitsForInput(fg, r.tty) || fromTimer && written != previous {
		return o, false, true
	}
	if continuing {
		return outcome{kind: atContinuation, pid: fg}, true, false
	}
	return outcome{kind: atPrompt, pid: fg, before: line[:start]}, true, false
}

func (r *replRun) streamEnd(res streamResult) outcome {
	if res.err != nil {
		return outcome{kind: hungUp}
	}
	return outcome{kind: ended, status: r.ext.Status()}
}

// afterDeath waits briefly for the END marker that follows the REPL's
// death, for its status.
func (r *replRun) afterDeath() outcome {
	grace := time.NewTimer(deathGrace)
	defer grace.Stop()
	for {
		select {
		case res := <-r.done:
			return r.streamEnd(res)
		case <-r.chunks:
		case <-grace.C:
			return outcome{kind: died}
		}
	}
}
