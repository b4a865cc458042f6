package repl

import (
	"fmt"
	"time"

	"github.com/ptybridge/ptybridge/internal/call"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// After an evaluation's input, a REPL may wait for input on a line that
// is neither of its prompts: the evaluation asks a question (python's
// input("Name? ")), or ptysend does not know its continuation prompt.
// The no-output timeout's Ctrl-C would lose the input, so once the stream
// has been quiet for stuckQuiet the call looks (in /proc only): a REPL
// asleep until the terminal has input, on such a line, is stuck when a
// second look stuckConfirm later finds it the same (exit 125). A REPL
// waiting in an event loop (node) is never stuck: it waits there alike
// for a timer or a promise (platform.WaitsOnlyForInput).
const (
	stuckQuiet   = time.Second
	stuckConfirm = 50 * time.Millisecond
)

// stuckTimer starts the quiet spell of a wait for the prompt; it fires
// only after an evaluation's input, not after an interrupt.
func (r *run) stuckTimer() *call.Timer {
	r.stuckSeen = false
	if !r.watchStuck || r.promptOnly || r.rec.Far {
		return call.NewTimer(0)
	}
	return call.NewTimer(stuckQuiet)
}

// lookStuck looks whether the REPL is stuck, and sets t for the next look
// when it is not known to be.
func (r *run) lookStuck(t *call.Timer) (outcome, bool) {
	line, _ := r.screen.text.Line()
	start, _ := pane.PromptIn(r.prompt, line)
	atAPrompt := start >= 0 || r.cont != nil && r.cont.MatchString(line)
	fg, err := platform.ForegroundPID(r.c.T.PanePID)
	if atAPrompt || err != nil || fg == r.rec.ShellPID || !platform.WaitsOnlyForInput(fg, r.tty) {
		r.stuckSeen = false
		t.Reset(stuckQuiet)
		return outcome{}, false
	}
	written := platform.BytesWritten(fg)
	if r.stuckSeen && r.stuckWritten == written {
		return outcome{kind: stuck, pid: fg, line: line}, true
	}
	r.stuckSeen, r.stuckWritten = true, written
	t.Reset(stuckConfirm)
	return outcome{}, false
}

func (r *run) stuckError(o outcome) error {
	prompts := fmt.Sprintf("neither its prompt (%s) nor its continuation prompt (%s)", r.prompt, r.cont)
	if r.cont == nil {
		prompts = fmt.Sprintf("not its prompt (%s), and it has no continuation prompt (--continuation)", r.prompt)
	}
	return &failure.Error{
		Msg: fmt.Sprintf("the REPL %s waits for input on the line %q, which is %s; nothing more was typed, and the REPL was left waiting",
			r.rec.Program, o.line, prompts),
		Hint: "if the evaluation asks a question (input()), ask the user to answer it in the ptybridge terminal; " +
			"if that line is the REPL's continuation prompt, leave it with ptysend --repl-close and start it again with --continuation REGEX matching that line",
	}
}
