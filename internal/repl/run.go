package repl

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ptybridge/ptybridge/internal/call"
	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// run is one call's view of the REPL: the stream, through the wrapper's
// extractor, into a lineScreen whose finished lines output sends to stdout.
type run struct {
	c            *call.Call
	rec          *pane.REPLRecord
	prompt, cont *regexp.Regexp
	tty          *os.File
	screen       *lineScreen
	out          *output
	ext          *markers.Extractor
	// streamMu is held while a chunk goes through ext into screen, so
	// that they and fed (the bytes they took, from base on) agree.
	streamMu   sync.Mutex
	fed, base  int64
	lastOutput atomic.Int64 // UnixNano
	chunks     chan struct{}
	done       chan error // nil: the END marker came
	death      <-chan struct{}
	written    int64 // the REPL's written bytes at the last look (check)
	promptOnly bool  // after a Ctrl-C (ctrlC)
	// stuck.go's: watchStuck after an evaluation's input.
	watchStuck, stuckSeen bool
	stuckWritten          int64
	cancelled             bool // the context's end was answered; the wait after the interrupt goes on
}

// newRun is a run that reads the REPL's stream, once started: from its
// START (rec.PID 0: it starts now, pre is what was read already), or
// from the prompt line the look saw.
func newRun(c *call.Call, rec *pane.REPLRecord, at *pane.PromptLine, pre []byte) *run {
	r := &run{c: c, rec: rec, prompt: rec.PromptRE(), cont: rec.ContinuationRE(), tty: platform.OpenTTY(rec.TTY),
		chunks: make(chan struct{}, 1), done: make(chan error, 1), base: c.T.StreamOffset()}
	r.out = &output{w: c.Req.Stdout, prompt: r.prompt, cont: r.cont}
	r.screen = newLineScreen(r.out.line, c.T.Paste)
	r.ext = markers.NewExtractor(rec.ID, r.screen)
	switch {
	case rec.PID == 0: // --repl-start: the output starts at START, on a line of its own
		r.screen.setLine("", 0, true)
	case at != nil:
		r.screen.setLine(at.Line, at.Col, at.Saved)
	}
	if rec.PID != 0 {
		// The START marker went by in an earlier call: declare it seen, so
		// the extractor passes the REPL's output on and stops at END.
		r.ext.Write([]byte(markers.Start(rec.ID)))
		if !rec.Far { // a far REPL's death is its END marker alone
			r.death = platform.WatchExit(c.Ctx, rec.PID)
		}
	}
	if len(pre) > 0 {
		r.ext.Write(pre)
		r.lastOutput.Store(time.Now().UnixNano())
	}
	return r
}

// start reads the stream, once what had to be typed first (an
// evaluation's input, answered by the relay on the stream) is.
func (r *run) start() *run {
	go r.pump()
	return r
}

// pump feeds the stream to the extractor; r.chunks says that output came
// and nothing more is buffered: the moment to look at the prompt.
func (r *run) pump() {
	buf := make([]byte, 64<<10)
	for {
		n, err := r.c.T.Read(buf)
		if n > 0 {
			r.streamMu.Lock()
			r.ext.Write(buf[:n])
			r.fed += int64(n)
			r.streamMu.Unlock()
			r.lastOutput.Store(time.Now().UnixNano())
			if r.ext.Done() {
				r.done <- nil
				return
			}
			if r.c.T.Buffered() == 0 {
				select {
				case r.chunks <- struct{}{}:
				default:
				}
			}
		}
		if err != nil {
			r.done <- err
			return
		}
	}
}

type outcomeKind int

const (
	atPrompt       outcomeKind = iota + 1
	atContinuation             // waiting for the rest of an input
	ended                      // END marker: the REPL exited, status known
	died                       // the process is gone, no END marker
	hungUp                     // the relay stream broke
	timedOut                   // or the call's context ended (a signal, a cancelled request)
	stuck                      // waits for input on a line that is neither prompt (stuck.go)
)

type outcome struct {
	kind      outcomeKind
	pid       int    // atPrompt: the REPL's process
	before    string // atPrompt: output on the prompt's line, before it
	status    int    // ended: the shell's $? for the REPL
	line      string // stuck: the cursor line
	why, hint string // timedOut: what happened, the hint, the call's status
	code      int
}

const (
	// Backoff of the re-check while the prompt shows but the REPL is not
	// yet asleep (it just printed it, or prints prompt-shaped text while
	// working). Only the kernel is asked; the cap bounds the delay.
	recheckFirst = time.Millisecond
	recheckMax   = 64 * time.Millisecond
	// deathGrace is how long ptysend waits for the shell's END marker
	// (which carries the exit status) once the REPL's process is gone.
	deathGrace = time.Second
)

// waitPrompt waits until the REPL waits for input at its prompt or
// continuation prompt; a zero limit is none.
func (r *run) waitPrompt(noOutputLimit, overallLimit time.Duration) outcome {
	noOutput, overall, stuckLook := call.NewTimer(noOutputLimit), call.NewTimer(overallLimit), r.stuckTimer()
	var recheck <-chan time.Time
	backoff := recheckFirst
	look := func(fromTimer bool) (outcome, bool) {
		o, ok, again := r.check(fromTimer)
		if again {
			recheck = time.After(backoff)
			backoff = min(2*backoff, recheckMax)
		}
		return o, ok
	}
	if o, ok := look(false); ok {
		return o
	}
	cancelled := r.c.Ctx.Done()
	if r.cancelled {
		cancelled = nil
	}
	for {
		select {
		case <-r.chunks:
			noOutput.Reset(noOutputLimit)
			backoff = recheckFirst
			r.stuckSeen = false
			stuckLook.Reset(stuckQuiet)
			if o, ok := look(false); ok {
				return o
			}
		case <-stuckLook.C():
			if o, ok := r.lookStuck(stuckLook); ok {
				return o
			}
		case <-recheck:
			if o, ok := look(true); ok {
				return o
			}
		case err := <-r.done:
			return r.endOutcome(err)
		case <-r.death:
			return r.waitEnd(deathGrace, nil, died)
		case <-noOutput.C():
			return outcome{kind: timedOut, code: failure.ExitTimeout, why: fmt.Sprintf("no output for %v (--timeout)", noOutputLimit),
				hint: "if the evaluation is slow but quiet, retry with a larger --timeout, e.g. --timeout 60; if it waits for input (input(), a debugger), ask the user"}
		case <-overall.C():
			return outcome{kind: timedOut, code: failure.ExitTimeout, why: fmt.Sprintf("it ran longer than %v (--max-time)", r.c.Req.MaxTime),
				hint: "if it needs longer, retry with a larger --max-time"}
		case <-cancelled:
			r.cancelled = true
			code, why := failure.Stopped(r.c.Ctx)
			return outcome{kind: timedOut, code: code, why: why, hint: failure.StoppedHint}
		}
	}
}

// check looks whether the REPL is done: all typed lines echoed, the
// cursor line showing the prompt, and the REPL waiting for input. again
// asks for another look soon: the prompt shows, the REPL is not waiting.
func (r *run) check(fromTimer bool) (o outcome, ok, again bool) {
	if !r.out.echoed() {
		return o, false, false
	}
	line, _ := r.screen.text.Line()
	start, _ := pane.PromptIn(r.prompt, line)
	continuing := start < 0 && !r.promptOnly && r.cont != nil && r.cont.MatchString(line)
	if start < 0 && !continuing {
		return o, false, false
	}
	var pid int
	if r.rec.Far {
		pid, ok, again = r.farWaits()
	} else {
		pid, ok, again = r.waits(fromTimer)
	}
	switch {
	case !ok:
		return o, false, again
	case continuing:
		return outcome{kind: atContinuation, pid: pid}, true, false
	}
	return outcome{kind: atPrompt, pid: pid, before: line[:start]}, true, false
}

// waits reports whether the REPL, the terminal's foreground process,
// sleeps waiting for input. A look on a timer may find it so while the
// screen shows an older, prompt-shaped line, its last output still in
// tmux: that counts only if it wrote nothing since the previous look.
func (r *run) waits(fromTimer bool) (pid int, ok, again bool) {
	fg, err := platform.ForegroundPID(r.c.T.PanePID)
	if err != nil || fg == r.rec.ShellPID {
		return 0, false, false // not started yet, or exited: END will come
	}
	written, previous := platform.BytesWritten(fg), r.written
	r.written = written
	if !r.rec.WaitsAtPrompt(fg, r.tty) || fromTimer && written != previous {
		return 0, false, true
	}
	return fg, true, false
}

// The kernel does not see a far REPL (behind ssh, su, sudo...): it waits
// once the stream has been quiet for farQuiet; output that looks like the
// prompt, then a pause as long, ends an evaluation early there.
const farQuiet = 150 * time.Millisecond

func (r *run) farWaits() (pid int, ok, again bool) {
	if last := r.lastOutput.Load(); last != 0 && time.Since(time.Unix(0, last)) < farQuiet {
		return 0, false, true
	}
	if r.rec.PID != 0 {
		return r.rec.PID, true, false
	}
	fg, err := platform.ForegroundPID(r.c.T.PanePID) // the carrier
	return fg, err == nil, false
}

func (r *run) endOutcome(err error) outcome {
	if err != nil {
		return outcome{kind: hungUp}
	}
	return outcome{kind: ended, status: r.ext.Status()}
}

// waitEnd waits up to limit for the REPL's END, or its death and then
// deathGrace for the END that carries the status; else it is timeout.
func (r *run) waitEnd(limit time.Duration, death <-chan struct{}, timeout outcomeKind) outcome {
	deadline := time.After(limit)
	for {
		select {
		case err := <-r.done:
			return r.endOutcome(err)
		case <-death:
			return r.waitEnd(deathGrace, nil, died)
		case <-r.chunks:
		case <-deadline:
			return outcome{kind: timeout}
		}
	}
}

// typeInput types the lines and Enter as tmux's paste-buffer -p and
// send-keys Enter would, if the stream is still where the look saw it:
// newlines become "\r", bracketed when the REPL turned bracketed paste on
// so that its line editor takes them as text (a TAB no completion);
// python 3.11 and node never turn it on. In an unknown mode (no switch
// seen since the relay started, as under dash), tmux pastes: it knows it.
func (r *run) typeInput(lines []string) error {
	text := strings.Join(lines, "\r")
	keys := ""
	switch r.pasteMode() {
	case cleantext.On:
		keys = "\x1b[200~" + text + "\x1b[201~\r" // xterm's bracketed paste, as tmux sends it
	case cleantext.Off:
		keys = text + "\r"
	}
	if err := r.c.TypeIf(keys); err != nil || keys != "" {
		return err
	}
	buf := "ptybridge-" + string(r.rec.ID)
	_, err := tmux.RunInput(strings.Join(lines, "\n"),
		"load-buffer", "-b", buf, "-",
		";", "paste-buffer", "-p", "-d", "-b", buf, "-t", r.c.T.PaneID,
		";", "send-keys", "-t", r.c.T.PaneID, "Enter")
	return err
}
