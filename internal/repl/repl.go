// Package repl drives an interpreter (python, node, psql...) in the shared
// pane for --repl-start, --repl-eval and --repl-close, on internal/call's
// pipeline; internal/pane decides whether the REPL may be typed into.
//
// A REPL runs from the ordinary wrapper script, whose END marker comes
// only when it exits: every later call notices a dying REPL at once. Its
// output is read as the human sees it (lineScreen); it is done with an
// input when the cursor line matches its prompt and it sleeps waiting for
// terminal input. Either alone can be fooled; both together only by a
// program that prints a prompt and then really waits for input.
package repl

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/call"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/human"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// Request is one --repl-start, --repl-eval or --repl-close call; Prompt
// and Continuation override the preset's for --repl-start.
type Request struct {
	call.Request
	Prompt, Continuation string
}

// Start runs command in the shared pane and returns once the REPL shows
// its prompt; what it printed until then goes to Stdout.
func Start(ctx context.Context, b bridge.Bridge, req Request, command string) (int, error) {
	rec, err := newRecord(b, req, command)
	if err != nil {
		return 0, err
	}
	q := &human.Question{Action: "start this REPL in the shared terminal", Text: command}
	return call.Do(ctx, b, req.Request, pane.IntoShell, q, func(c *call.Call, st *pane.State) (int, error) {
		pre, err := typeStart(c, st, rec)
		if err != nil {
			return 0, err
		}
		r := newRun(c, rec, nil, pre).start()
		defer r.tty.Close() // nil-safe
		return r.awaitStart()
	})
}

func newRecord(b bridge.Bridge, req Request, command string) (*pane.REPLRecord, error) {
	program := replProgram(command)
	preset := replPresets[program]
	// --prompt keeps the preset's continuation prompt, which only
	// --continuation replaces: python's "... " must survive --prompt '^>>> '.
	rec := &pane.REPLRecord{Command: command, Program: program,
		Prompt: cmp.Or(req.Prompt, preset.Prompt), Continuation: cmp.Or(req.Continuation, preset.Continuation)}
	if rec.Prompt == "" {
		return nil, &failure.Error{
			Msg:  fmt.Sprintf("ptysend does not know the prompt of %q", rec.Program),
			Hint: "say what it looks like with --prompt REGEX (matched against the line the cursor is on), e.g. --prompt '^>>> '",
		}
	}
	for _, re := range []string{rec.Prompt, rec.Continuation} {
		if _, err := regexp.Compile(re); err != nil {
			return nil, &failure.Error{Msg: fmt.Sprintf("invalid prompt regex %q: %v", re, err), Hint: "use Go regexp syntax, e.g. --prompt '^>>> '"}
		}
	}
	id, err := call.NewCallID(b.RuntimeDir)
	if err != nil {
		return nil, failure.From(err)
	}
	call.SweepLeftovers(b.RuntimeDir)
	rec.ID, rec.Script = id, filepath.Join(b.RuntimeDir, string(id)+".repl.sh")
	return rec, nil
}

// typeStart starts the REPL's wrapper: loaded through the terminal into
// a far shell (it returns what was read of the stream), else written and
// sourced. Its stderr stays on the terminal: python prompts there.
func typeStart(c *call.Call, st *pane.State, rec *pane.REPLRecord) ([]byte, error) {
	if st.Far != nil {
		rec.Far, rec.Carrier = true, platform.ExecImage(st.Far.Carrier.PID)
		rec.ShellPID, rec.TTY = -1, platform.TTYOf(st.View.PanePID)
		return c.LoadFar(st.Far, rec.ID, rec.Command)
	}
	rec.ShellPID, rec.TTY = st.Shell.PID, platform.TTYOf(st.Shell.PID)
	job := markers.Job{ID: rec.ID, Command: rec.Command, StderrPath: "/dev/tty",
		EraseRows: c.EchoRows(markers.SourceLine(st.Shell.Syntax, rec.Script), rec.TTY)}
	if err := os.WriteFile(rec.Script, []byte(markers.Script(st.Shell.Syntax, job)), 0o600); err != nil {
		return nil, failure.From(err)
	}
	c.T.Runs(string(rec.ID), rec.Command) // for the relay's history
	if err := c.TypeIf(markers.SourceLine(st.Shell.Syntax, rec.Script) + "\r"); err != nil {
		os.Remove(rec.Script)
		return nil, err
	}
	return nil, nil
}

func (r *run) awaitStart() (int, error) {
	o := r.waitPrompt(r.c.Req.Timeout, call.Remaining(r.c.Start, r.c.Req.MaxTime))
	switch o.kind {
	case atPrompt:
		r.rec.PID = o.pid
		if !r.rec.Far {
			r.rec.PromptMode = pane.PromptModeOf(r.tty)
		}
		if err := r.saveView(); err != nil {
			return 0, failure.From(err)
		}
		r.out.write(o.before)
		return 0, nil
	case ended, died:
		os.Remove(r.rec.Script)
		return 0, &failure.Error{
			Msg:  fmt.Sprintf("%s %s before showing a prompt", r.rec.Program, exitDescription(o)),
			Hint: "its output is above; check the command, and pass --prompt REGEX if its prompt is not " + r.prompt.String(),
		}
	case timedOut:
		// Keep the record: the REPL may just be slow, or its prompt
		// unknown; either way --repl-close can end it.
		if fg, err := platform.ForegroundPID(r.c.T.PanePID); err == nil && fg != r.rec.ShellPID {
			r.rec.PID = fg
			pane.SaveREPL(r.c.B, r.rec)
		}
		line, _ := r.screen.text.Line()
		return o.code, &failure.Error{
			Code: o.code,
			Msg:  fmt.Sprintf("%s showed no prompt matching %s: %s; the cursor line is %q", r.rec.Program, r.prompt, o.why, line),
			Hint: "if that line is its prompt, run ptysend --repl-close and start it again with --prompt REGEX; if it is slow to start, use a larger --timeout",
		}
	}
	return r.failed(o)
}

// Eval types expr into the running REPL and prints its response.
func Eval(ctx context.Context, b bridge.Bridge, req Request, expr string) (int, error) {
	q := &human.Question{Action: "evaluate this in the REPL", Text: expr}
	if rec := pane.LoadREPL(b); rec != nil {
		q.Action += " " + rec.Program
	}
	return call.Do(ctx, b, req.Request, pane.IntoREPL, q, func(c *call.Call, st *pane.State) (int, error) {
		r := newRun(c, st.REPL, st.Prompt, nil)
		defer r.tty.Close() // nil-safe
		// A trailing newline would be an extra empty input.
		lines := strings.Split(strings.TrimRight(strings.ReplaceAll(expr, "\r\n", "\n"), "\n"), "\n")
		r.out.expect(lines...)
		if err := r.typeInput(lines); err != nil {
			return 0, err
		}
		r.start()
		r.watchStuck = true
		return r.awaitResponse()
	})
}

func (r *run) awaitResponse() (int, error) {
	closedBlock := false
	for {
		o := r.waitPrompt(r.c.Req.Timeout, call.Remaining(r.c.Start, r.c.Req.MaxTime))
		switch {
		case o.kind == atPrompt:
			r.out.write(o.before)
			r.saveView()
			return r.verdict()
		case o.kind == atContinuation && !closedBlock:
			// A compound statement (python's def) ends with an empty line.
			closedBlock = true
			r.out.expect("")
			r.c.T.Type("\r")
			continue
		case o.kind == atContinuation:
			return r.cancelIncomplete()
		case o.kind == timedOut:
			return r.interrupt(o)
		case o.kind == stuck:
			return 0, r.stuckError(o)
		}
		return r.failed(o)
	}
}

// interrupt stops an evaluation that timed out (or a stopped call) with
// Ctrl-C, which REPLs take as "abandon this input": the REPL stays
// usable. No Ctrl-\ as for commands: it would kill the REPL's state.
func (r *run) interrupt(why outcome) (int, error) {
	o := r.ctrlC()
	switch o.kind {
	case atPrompt:
		r.out.write(o.before)
		return why.code, &failure.Error{Code: why.code, Msg: why.why + ": interrupted the evaluation with Ctrl-C; the REPL is at its prompt again", Hint: why.hint}
	case timedOut:
		return why.code, &failure.Error{
			Code: why.code,
			Msg:  why.why + fmt.Sprintf(": sent Ctrl-C, but the REPL %s is still busy in the shared terminal", r.rec.Program),
			Hint: "ask the user to look at the ptybridge terminal, or end the REPL with ptysend --repl-close",
		}
	}
	return r.failed(o)
}

// cancelIncomplete: the REPL still waits for more after an empty line, so
// the expression was incomplete; Ctrl-C drops it, as a human would.
func (r *run) cancelIncomplete() (int, error) {
	o := r.ctrlC()
	what := fmt.Sprintf("the REPL %s still waited for more input after the expression and an empty line: the expression looks incomplete (an unclosed bracket, string or block?)", r.rec.Program)
	switch o.kind {
	case ended, died, hungUp:
		return r.failed(o)
	case atPrompt:
		return 0, &failure.Error{Msg: what + "; it was cancelled with Ctrl-C", Hint: "fix the expression and retry"}
	}
	return 0, &failure.Error{
		Msg:  what + "; Ctrl-C did not bring its prompt back",
		Hint: "send the rest of the input with --repl-eval, ask the user, or leave the REPL with ptysend --repl-close",
	}
}

// ctrlC abandons the input and waits for the prompt: only the main one
// then, as the continuation prompt may still show for a moment.
func (r *run) ctrlC() outcome {
	r.out.interrupted()
	r.promptOnly = true
	r.c.T.Type(call.CtrlC)
	return r.waitPrompt(0, call.KillGrace)
}

// Close leaves the REPL: Ctrl-D, then SIGTERM, then SIGKILL (a far one:
// Ctrl-C, Ctrl-\), until the shell is back. A busy REPL, the agent's, gets
// Ctrl-C first; a line the human types at its prompt is refused.
func Close(ctx context.Context, b bridge.Bridge, req Request) (int, error) {
	notes := req.Notes // where ptysend's own notes go before call.Do sets them up
	if notes == nil {
		notes = req.Stderr
	}
	if pane.LoadREPL(b) == nil {
		fmt.Fprintln(notes, "ptysend: no REPL is open in the shared terminal; nothing to close")
		return 0, nil
	}
	// What the REPL shows on its way out (its prompt, which Ctrl-D's
	// newline finishes; a goodbye) is for the human.
	req.Stdout = io.Discard
	status, err := call.Do(ctx, b, req.Request, pane.CloseREPL, nil, func(c *call.Call, st *pane.State) (int, error) {
		r := newRun(c, st.REPL, st.Prompt, nil).start()
		defer r.tty.Close() // nil-safe
		return r.close(st.Prompt != nil)
	})
	var gone *pane.REPLGone
	if errors.As(err, &gone) || errors.Is(err, pane.ErrNoREPL) {
		if gone != nil {
			fmt.Fprintf(notes, "ptysend: the REPL %s had already exited; forgot it\n", gone.R.Program)
		}
		return 0, nil
	}
	return status, err
}

const closeGrace = 2 * time.Second // for each means of --repl-close to end the REPL

func (r *run) close(atPrompt bool) (int, error) {
	keys := func(k string) func() { return func() { r.c.T.Type(k) } }
	signal := func(sig syscall.Signal) func() { return func() { syscall.Kill(r.rec.PID, sig) } }
	means := []func(){keys("\x04"), signal(syscall.SIGTERM), signal(syscall.SIGKILL)}
	if r.rec.Far { // no signal reaches the far end but through the terminal
		means = []func(){keys("\x04"), keys(call.CtrlC), keys(call.CtrlBackslash)}
	}
	if !atPrompt {
		r.c.T.Type(call.CtrlC) // a running evaluation
	}
	for _, do := range means {
		do()
		if o := r.waitEnd(closeGrace, r.death, timedOut); o.kind == ended || o.kind == died {
			pane.ClearREPL(r.c.B, r.rec)
			return 0, nil
		} else if o.kind == hungUp {
			return r.failed(o)
		}
	}
	return 0, &failure.Error{
		Msg:  fmt.Sprintf("the REPL %s (pid %d) did not exit after Ctrl-D, SIGTERM and SIGKILL", r.rec.Program, r.rec.PID),
		Hint: "ask the user to look at the ptybridge terminal",
	}
}

// failed turns the ways a REPL run can go wrong into an error.
func (r *run) failed(o outcome) (int, error) {
	switch o.kind {
	case ended, died:
		pane.ClearREPL(r.c.B, r.rec)
		return 0, &failure.Error{
			Msg: fmt.Sprintf("the REPL %s (pid %d) %s", r.rec.Program, r.rec.PID, exitDescription(o)),
			Hint: fmt.Sprintf("its state (variables, definitions) is lost; start it again with ptysend --repl-start %s if you need it; ptysend -- CMD runs shell commands again",
				markers.QuotePOSIX(r.rec.Command)),
		}
	case hungUp:
		return 0, r.c.B.Closed(true)
	}
	return 0, &failure.Error{Msg: "unexpected state " + fmt.Sprint(o.kind), Hint: "this is unexpected: please report it with the command you ran"}
}

// exitDescription says how the REPL ended, from the shell's status.
func exitDescription(o outcome) string {
	switch {
	case o.kind == died:
		return "exited (the shell did not report its status)"
	case o.status > 128 && o.status < 128+65:
		sig := syscall.Signal(o.status - 128)
		return fmt.Sprintf("was killed by signal %d (%s)", int(sig), sig)
	default:
		return fmt.Sprintf("exited with status %d", o.status)
	}
}
