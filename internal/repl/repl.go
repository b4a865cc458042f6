// Package repl drives an interpreter (python, node, psql...) in the shared
// pane for --repl-start, --repl-eval and --repl-close: the prompt
// presets, the cursor-line emulator that shows the REPL's output as the
// human sees it, telling the echo of the input from the response, the
// kernel's word that the REPL waits for input, and the REPL's state kept
// between calls in the runtime directory. Shell commands are not its
// business (internal/session).
package repl

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/limits"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/rundir"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// A REPL runs in the shared pane from the ordinary wrapper script: the
// shell prints the START marker, runs the REPL, and prints the END marker
// only when the REPL exits. Every later ptysend call reads the pane's
// stream through the relay (which also queues the calls) and watches for
// that END marker: it is how a dying REPL is noticed at once. In between,
// the REPL's output is read as the human sees it (lineScreen), and the
// REPL is done with an input when two things hold: the cursor line
// matches its prompt, and the REPL sleeps waiting for terminal input
// (platform.WaitsForInput). Either alone can be fooled; both together only by a
// program that prints a prompt and then really waits for input.

// Request is one --repl-start, --repl-eval or --repl-close call.
type Request struct {
	Bridge bridge.Bridge
	// Timeout is the no-output timeout; MaxTime the overall one. Zero
	// disables either.
	Timeout, MaxTime time.Duration
	Stdout, Stderr   io.Writer
	// Prompt and Continuation override the preset for --repl-start.
	Prompt, Continuation string
	// WaitFree is how long to wait for the terminal to be free instead of
	// refusing at once (exit 75); zero refuses at once.
	WaitFree time.Duration
	// Cancel, when closed, stops the call as a stop signal does: an
	// evaluation gets Ctrl-C, and a call still waiting for its turn
	// types nothing.
	Cancel <-chan struct{}
	// StartFar types the far call that runs a REPL in a far shell
	// (session.StartFarREPL); nil: far REPLs are refused.
	StartFar FarStarter
}

// deathGrace is how long ptysend waits for the shell's END marker (which
// carries the exit status) once the REPL's process is gone.
const deathGrace = time.Second

// closeGrace is how long each means of --repl-close gets to end the REPL.
const closeGrace = 2 * time.Second

// Start runs command in the shared pane and returns once the REPL
// shows its prompt; what it printed until then goes to Stdout.
func Start(req Request, command string) (int, error) {
	return untilFree(req, func() (int, error) { return startAttempt(req, command) })
}

func startAttempt(req Request, command string) (int, error) {
	start := time.Now()
	rc, err := req.Bridge.TurnUnlessCancelled(req.MaxTime, req.Stderr, start, req.Cancel)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	if err := refuseSecondREPL(req.Bridge, rc.PanePID); err != nil {
		return 0, err
	}
	st, err := newREPLState(req, command)
	if err != nil {
		return 0, err
	}
	if t, err := pane.Locate(rc.PanePID); err == nil && t.Far {
		if req.StartFar == nil {
			return 0, farREPLError(t)
		}
		return startFar(req, rc, st, t, start)
	}
	shellPID, shell, err := pane.IdleShell(rc.PanePID)
	if err != nil {
		return 0, pane.ProgramInTheWay(err, rc.PanePID)
	}
	st.ShellPID, st.TTY = shellPID, platform.TTYOf(shellPID)
	// The REPL's stderr stays on the terminal (the wrapper would send it to
	// a file): python prints its prompts and tracebacks there.
	job := markers.Job{ID: st.ID, Command: command, StderrPath: "/dev/tty"}
	if err := os.WriteFile(st.Script, []byte(markers.Script(shell, job)), 0o600); err != nil {
		return 0, failure.From(err)
	}
	r := newREPLRun(req, rc, st, start)
	defer r.stop()
	if err := r.approveStart(); err != nil {
		os.Remove(st.Script)
		return 0, err
	}
	rc.Job(st.ID, command) // for the relay's history
	if err := pane.TypeSourceLine(rc, req.Bridge, shell, st.Script); err != nil {
		os.Remove(st.Script)
		return 0, failure.From(err)
	}
	return r.awaitStart()
}

func (r *replRun) awaitStart() (int, error) {
	o := r.waitPrompt(r.req.Timeout, limits.Remaining(r.start, r.req.MaxTime))
	switch o.kind {
	case atPrompt:
		r.st.PID = o.pid
		r.st.View = r.view()
		if err := saveREPL(r.req.Bridge, r.st); err != nil {
			return 0, failure.From(err)
		}
		r.writeBeforePrompt(o)
		return 0, nil
	case ended, died:
		os.Remove(r.st.Script)
		return 0, &failure.Error{
			Msg:  fmt.Sprintf("%s %s before showing a prompt", r.st.Program, exitDescription(o)),
			Hint: "its output is above; check the command, and pass --prompt REGEX if its prompt is not " + r.prompt.String(),
		}
	case timedOut, signalled:
		// Keep the state: the REPL may just be slow, or its prompt unknown;
		// either way --repl-close can end it.
		if fg, err := platform.ForegroundPID(r.rc.PanePID); err == nil && fg != r.st.ShellPID {
			r.st.PID = fg
			saveREPL(r.req.Bridge, r.st)
		}
		line, _ := r.screen.cursorLine()
		code := failure.ExitTimeout
		if o.kind == signalled {
			code = 128 + int(o.sig.(syscall.Signal))
		}
		return code, &failure.Error{
			Code: code,
			Msg:  fmt.Sprintf("%s showed no prompt matching %s: %s; the cursor line is %q", r.st.Program, r.prompt, o.why, line),
			Hint: "if that line is its prompt, run ptysend --repl-close and start it again with --prompt REGEX; if it is slow to start, use a larger --timeout",
		}
	}
	return r.failed(o)
}

// Eval types expr into the running REPL and prints its response.
func Eval(req Request, expr string) (int, error) {
	return untilFree(req, func() (int, error) { return evalAttempt(req, expr) })
}

func evalAttempt(req Request, expr string) (int, error) {
	start := time.Now()
	rc, err := req.Bridge.TurnUnlessCancelled(req.MaxTime, req.Stderr, start, req.Cancel)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	st, err := runningREPL(req.Bridge, rc.PanePID)
	if err != nil {
		return 0, err
	}
	r := newREPLRun(req, rc, st, start)
	defer r.stop()
	if err := r.checkReady(); err != nil {
		return 0, err
	}
	if err := r.approveEval(expr); err != nil {
		return 0, err
	}
	lines := inputLines(expr)
	r.out.expect(lines...)
	if err := r.typeInput(lines); err != nil {
		return 0, failure.From(err)
	}
	r.watchStuck = true
	return r.awaitResponse()
}

func (r *replRun) awaitResponse() (int, error) {
	closedBlock := false
	for {
		o := r.waitPrompt(r.req.Timeout, limits.Remaining(r.start, r.req.MaxTime))
		switch {
		case o.kind == atPrompt:
			r.writeBeforePrompt(o)
			r.saveView()
			return 0, nil
		case o.kind == atContinuation && !closedBlock:
			// A compound statement (python's def) ends with an empty line.
			closedBlock = true
			r.out.expect("")
			r.sendKey("Enter")
			continue
		case o.kind == atContinuation:
			return r.cancelIncomplete()
		case o.kind == timedOut || o.kind == signalled:
			return r.interrupt(o)
		case o.kind == stuck:
			return 0, r.stuckError(o)
		}
		return r.failed(o)
	}
}

// Close leaves the REPL: Ctrl-D, then SIGTERM, then SIGKILL, until
// the shell is back.
func Close(req Request) (int, error) {
	start := time.Now()
	rc, err := req.Bridge.Turn(req.MaxTime, req.Stderr, start)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	st, err := loadREPL(req.Bridge)
	if err != nil {
		return 0, failure.From(err)
	}
	if st == nil {
		fmt.Fprintln(req.Stderr, "ptysend: no REPL is open in the shared terminal; nothing to close")
		return 0, nil
	}
	if !st.inForeground(rc.PanePID) {
		clearREPL(req.Bridge, st)
		fmt.Fprintf(req.Stderr, "ptysend: the REPL %s had already exited; forgot it\n", st.Program)
		return 0, nil
	}
	// What the REPL shows on its way out (its prompt, which Ctrl-D's
	// newline finishes; a goodbye) is for the human: --repl-close prints
	// nothing on stdout.
	req.Stdout = io.Discard
	r := newREPLRun(req, rc, st, start)
	defer r.stop()
	return r.close()
}

func (r *replRun) close() (int, error) {
	means := []struct {
		name string
		do   func()
	}{
		{"Ctrl-D", func() {
			if r.checkReady() != nil {
				r.sendKey("C-c") // the human's half-typed line, or a running evaluation
			}
			r.sendKey("C-d")
		}},
		{"SIGTERM", func() { syscall.Kill(r.st.PID, syscall.SIGTERM) }},
		{"SIGKILL", func() { syscall.Kill(r.st.PID, syscall.SIGKILL) }},
	}
	if r.st.Far { // no signal reaches the far end but through the terminal
		means[1].name, means[1].do = "Ctrl-C", func() { r.sendKey("C-c") }
		means[2].name, means[2].do = `Ctrl-\`, func() { r.sendKey(`C-\`) }
	}
	for _, m := range means {
		m.do()
		if o := r.waitGone(closeGrace); o.kind == ended || o.kind == died {
			clearREPL(r.req.Bridge, r.st)
			return 0, nil
		} else if o.kind == hungUp {
			return r.failed(o)
		}
	}
	return 0, &failure.Error{
		Msg:  fmt.Sprintf("the REPL %s (pid %d) did not exit after Ctrl-D, SIGTERM and SIGKILL", r.st.Program, r.st.PID),
		Hint: "ask the user to look at the ptybridge terminal",
	}
}

// refuseSecondREPL: one REPL at a time (a REPL started from inside
// another one, like pdb in python, is just part of it).
func refuseSecondREPL(b bridge.Bridge, panePID int) error {
	st, err := loadREPL(b)
	if err != nil || st == nil {
		return err
	}
	if !st.inForeground(panePID) {
		clearREPL(b, st)
		return nil
	}
	return &failure.Error{
		Msg:  fmt.Sprintf("the REPL %s is already running in the shared terminal, and ptysend drives one REPL at a time", st.Program),
		Hint: "evaluate in it with ptysend --repl-eval EXPR, or leave it with ptysend --repl-close before starting another",
	}
}

func newREPLState(req Request, command string) (*replState, error) {
	preset, _ := presetFor(command)
	st := &replState{Command: command, Program: replProgram(command), Prompt: preset.Prompt, Continuation: preset.Continuation}
	// --prompt replaces the preset's prompt; its continuation prompt stays
	// unless --continuation replaces it too (python's "... " must not be
	// lost to a --prompt '^>>> ').
	if req.Prompt != "" {
		st.Prompt = req.Prompt
	}
	if req.Continuation != "" {
		st.Continuation = req.Continuation
	}
	if st.Prompt == "" {
		return nil, &failure.Error{
			Msg:  fmt.Sprintf("ptysend does not know the prompt of %q", st.Program),
			Hint: "say what it looks like with --prompt REGEX (matched against the line the cursor is on), e.g. --prompt '^>>> '",
		}
	}
	for _, re := range []string{st.Prompt, st.Continuation} {
		if _, err := regexp.Compile(re); err != nil {
			return nil, &failure.Error{Msg: fmt.Sprintf("invalid prompt regex %q: %v", re, err), Hint: "use Go regexp syntax, e.g. --prompt '^>>> '"}
		}
	}
	id, err := markers.NewID()
	if err != nil {
		return nil, failure.From(err)
	}
	// Claimed, as a command's id is, before its script exists: no other
	// call takes the script for a leftover (see rundir/calls.go).
	rundir.Claim(req.Bridge.RuntimeDir, string(id))
	st.ID, st.Script = id, filepath.Join(req.Bridge.RuntimeDir, string(id)+".repl.sh")
	return st, nil
}

// runningREPL is the REPL an evaluation goes to, or why there is none.
func runningREPL(b bridge.Bridge, panePID int) (*replState, error) {
	st, err := loadREPL(b)
	if err != nil {
		return nil, failure.From(err)
	}
	if st == nil {
		return nil, &failure.Error{
			Msg:  "no REPL is running in the shared terminal",
			Hint: "start one first, e.g. ptysend --repl-start python3 (or node, psql, irb, 'nix repl', ghci, lua, sqlite3; others with --prompt REGEX), then ptysend --repl-eval EXPR",
		}
	}
	if st.inForeground(panePID) {
		return st, nil
	}
	if !st.Far && platform.Stopped(st.PID) {
		return nil, &failure.Error{
			Code: failure.ExitBusy,
			Msg:  fmt.Sprintf("the REPL %s (pid %d) is suspended (Ctrl-Z), so nothing was typed", st.Program, st.PID),
			Hint: "ask the user to resume it with fg in the ptybridge terminal, then retry",
		}
	}
	clearREPL(b, st)
	return nil, &failure.Error{
		Msg:  fmt.Sprintf("the REPL %s (pid %d) is no longer running in the shared terminal: it exited or was killed since the last call", st.Program, st.PID),
		Hint: fmt.Sprintf("its state (variables, definitions) is gone; start it again with ptysend --repl-start %s; ptysend -- CMD runs shell commands again", markers.QuotePOSIX(st.Command)),
	}
}

// inputLines splits an expression into the lines the REPL will read. A
// trailing newline would be an extra empty input.
func inputLines(expr string) []string {
	expr = strings.ReplaceAll(expr, "\r\n", "\n")
	return strings.Split(strings.TrimRight(expr, "\n"), "\n")
}

// pasteWithTmux pastes the lines and presses Enter with tmux (see
// typeInput): paste-buffer -p brackets the paste when the REPL has asked
// for bracketed paste, as tmux knows from the pane's output.
func (r *replRun) pasteWithTmux(lines []string) error {
	buf := "ptybridge-" + string(r.st.ID)
	pane := r.rc.PaneID
	_, err := tmux.RunInput(strings.Join(lines, "\n"),
		"load-buffer", "-b", buf, "-",
		";", "paste-buffer", "-p", "-d", "-b", buf, "-t", pane,
		";", "send-keys", "-t", pane, "Enter")
	return err
}

// checkReady makes sure the REPL waits at its prompt with an empty line
// before anything is typed: not evaluating, and not holding a line the
// human is typing.
func (r *replRun) checkReady() error {
	if !r.viewed {
		// No view from the stream (the human typed, the REPL printed on
		// its own, the relay was restarted since the last call): tmux's.
		line, col, inMode, err := tmux.CursorLine(r.rc.PaneID)
		if err != nil {
			return failure.From(err)
		}
		if inMode {
			return pane.CopyModeError
		}
		r.screen.reset(line, col)
	} else if r.req.Bridge.InCopyMode() {
		return pane.CopyModeError
	}
	line, col := r.screen.cursorLine() // with the prompt's trailing blanks
	start, end := promptIn(r.prompt, line)
	if start > 0 {
		// Output without a final newline before the prompt went to an
		// earlier call; the echo of this input starts at the prompt.
		r.screen.reset(line[start:], col-utf8.RuneCountInString(line[:start]))
	}
	switch {
	case start < 0 || !r.waitsForInputSoon():
		return &failure.Error{
			Code: failure.ExitBusy,
			Msg:  fmt.Sprintf("the REPL %s is busy (not waiting at its prompt), so nothing was typed; the cursor line is %q", r.st.Program, line),
			Hint: "wait for it and retry, ask the user what it is doing, or stop it with ptysend --repl-close",
		}
	case strings.TrimSpace(line[end:]) != "":
		return &failure.Error{
			Code: failure.ExitBusy,
			Msg:  fmt.Sprintf("the user is typing at the %s prompt (%q), so nothing was typed", r.st.Program, line),
			Hint: "ask the user to finish or clear their line in the ptybridge terminal, then retry",
		}
	}
	return nil
}

// waitsForInputSoon allows for a REPL that has just printed its prompt
// and is about to sleep, or a runtime thread that is briefly awake: node
// reads its history file in worker threads after its first prompt. Up
// to ~250 ms, on a loaded machine (it waits only when the REPL is not
// asleep: at once for an eval that follows the last call's prompt).
func (r *replRun) waitsForInputSoon() bool {
	if r.st.Far {
		return r.farQuiet()
	}
	for d := time.Millisecond; d <= 128*time.Millisecond; d *= 2 {
		if platform.WaitsForInput(r.st.PID, r.tty) {
			return true
		}
		time.Sleep(d)
	}
	return false
}

// promptIn finds the prompt on a cursor line: at its start (the human may
// have typed after it), or ending the line (after output that had no
// final newline). It returns the prompt's span, or -1, -1.
func promptIn(re *regexp.Regexp, line string) (int, int) {
	if loc := re.FindStringIndex(line); loc != nil && loc[0] == 0 {
		return 0, loc[1]
	}
	trimmed := strings.TrimRight(line, " ")
	for i := 1; i < len(line); i++ {
		if loc := re.FindStringIndex(line[i:]); loc != nil && loc[0] == 0 && i+loc[1] >= len(trimmed) {
			return i, i + loc[1]
		}
	}
	return -1, -1
}

// failed turns the ways a REPL run can go wrong into an error.
func (r *replRun) failed(o outcome) (int, error) {
	switch o.kind {
	case ended, died:
		clearREPL(r.req.Bridge, r.st)
		return 0, &failure.Error{
			Msg: fmt.Sprintf("the REPL %s (pid %d) %s", r.st.Program, r.st.PID, exitDescription(o)),
			Hint: fmt.Sprintf("its state (variables, definitions) is lost; start it again with ptysend --repl-start %s if you need it; ptysend -- CMD runs shell commands again",
				markers.QuotePOSIX(r.st.Command)),
		}
	case hungUp:
		return 0, r.req.Bridge.Closed(true)
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

// interrupt stops an evaluation that ran into a timeout (or ptysend being
// stopped) with Ctrl-C, which REPLs take as "abandon this input", not
// "quit"; the REPL stays usable. There is no Ctrl-\ as for commands: that
// would kill the REPL and all its state.
func (r *replRun) interrupt(why outcome) (int, error) {
	r.out.interrupted()
	r.promptOnly = true
	r.sendKey("C-c")
	o := r.waitPrompt(0, limits.KillGrace)
	code := failure.ExitTimeout
	if why.kind == signalled {
		code = 128 + int(why.sig.(syscall.Signal))
	}
	switch o.kind {
	case atPrompt:
		r.writeBeforePrompt(o)
		return code, &failure.Error{Code: code, Msg: why.why + ": interrupted the evaluation with Ctrl-C; the REPL is at its prompt again", Hint: why.hint}
	case timedOut, signalled:
		return code, &failure.Error{
			Code: code,
			Msg:  why.why + fmt.Sprintf(": sent Ctrl-C, but the REPL %s is still busy in the shared terminal", r.st.Program),
			Hint: "ask the user to look at the ptybridge terminal, or end the REPL with ptysend --repl-close",
		}
	}
	return r.failed(o)
}

// cancelIncomplete: the REPL still waits for more after an empty line, so
// the expression was incomplete; Ctrl-C drops it, as a human would.
func (r *replRun) cancelIncomplete() (int, error) {
	r.out.interrupted()
	r.promptOnly = true
	r.sendKey("C-c")
	o := r.waitPrompt(0, limits.KillGrace)
	what := fmt.Sprintf("the REPL %s still waited for more input after the expression and an empty line: the expression looks incomplete (an unclosed bracket, string or block?)", r.st.Program)
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

// writeBeforePrompt passes on output that the prompt was printed after,
// on the same line (output without a final newline).
func (r *replRun) writeBeforePrompt(o outcome) {
	if o.before != "" {
		r.out.write(o.before)
	}
}

// waitGone waits for the REPL to end, within limit.
func (r *replRun) waitGone(limit time.Duration) outcome {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		select {
		case res := <-r.done:
			return r.streamEnd(res)
		case <-r.death:
			return r.afterDeath()
		case <-r.chunks:
		case <-deadline.C:
			return outcome{kind: timedOut}
		}
	}
}

// farREPLError refuses a REPL in a far shell: its readiness check reads
// the REPL's wait channels in /proc, which does not see the far end.
func farREPLError(t pane.Target) error {
	return &failure.Error{
		Msg: fmt.Sprintf("the shared terminal's shell is at the far end of %s: ptysend starts REPLs in a local shell only "+
			"(it tells a REPL waiting for input from one that is busy through /proc, which does not see the far end)", t.Name),
		Hint: "run the interpreter's code with ptysend -- instead (e.g. ptysend -- python3 -c '...', or a here-document)",
	}
}
