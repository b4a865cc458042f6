// Package pane decides what the shared pane is doing and whether the agent may type into it: Look
// on a turn at the pane, Peek on a relay's status answer. Both read the relay's view of the stream,
// the terminal's foreground process, input queue and wait channels, and the bridge's records (copy
// mode, the far shell, the agent's REPL); for a shell without hooks, the screen's cursor line too.
// They type nothing. A refusal is an error with exit 75 (it clears by itself) or 125 (the agent
// must act), and a hint that says what to ask the user.
package pane

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

type Want int

const (
	IntoShell Want = iota // a line for the shell (a command, a REPL's start)
	IntoREPL              // input for the agent's REPL (an evaluation)
	CloseREPL             // the keys that close the agent's REPL, interrupting it first when busy
	Nothing               // the caller only looks (--status, --sessions, a job)
	SetUp                 // the hooks, for a new bridge's shell that no terminal shows yet (SetUpShell)
)

// The states of the pane, most telling first, as --status names them.
const (
	Idle        = "idle"
	AgentCall   = "agent_call"
	REPLState   = "repl"
	Unsupported = "unsupported_shell"
	Busy        = "busy"
	CopyMode    = "copy_mode"
	HalfTyped   = "half_typed_line"
	ViCommand   = "vi_command_mode" // the line editor reads keys as vi commands (the user pressed Esc)
	Lingering   = "lingering"       // no terminal of the user's is open (ptybridge --linger)
)

type State struct {
	View                relay.View
	Kind                string // one of the states above
	Refusal             error  // why the agent must not type what it wants, if so
	Foreground          Process
	Shell               *Shell      // ours that would read a typed line, or runs the foreground program
	Far                 *Far        // the shell at the far end of a carrier (ssh, su...)
	REPL                *REPLRecord // the agent's REPL (--repl-start) when it leads the foreground
	Prompt              *PromptLine // the agent's REPL's, when it waits at it (IntoREPL)
	CopyMode, HalfTyped bool
	arriving            bool // keys wait for a shell that sleeps at its prompt: it reads them at once
}

type Process struct {
	PID  int
	Name string
	Args []string
}

type Shell struct {
	Process
	Syntax     markers.Shell
	Hooks      bool   // its events are the relay's last
	NeedsHooks bool   // a line typed now must install them first
	TTY        string // the terminal it reads (a local shell's, as the look found it)
}

// settleLimit bounds the wait for what may clear in a moment (the prompt drawn after the last
// call's end, a prompt framework's helper); looks come soon, then less often.
const (
	settleLimit  = 500 * time.Millisecond
	firstBackoff = time.Millisecond
	maxBackoff   = 64 * time.Millisecond
)

// Look reads the pane's state on a turn, whose stream it reads (TypeIf types if no more came).
func Look(t *relay.Turn, b bridge.Bridge, want Want) (*State, error) {
	deadline, backoff := time.Now().Add(settleLimit), firstBackoff
	t.Tracker.Write(t.Stashed())
	for {
		s := &State{View: t.View}
		s.View.Shell, s.View.Offset = t.Tracker.Snapshot(), t.StreamOffset()
		if s.View.Shell.State == markers.StateTyped {
			s.View.Shell = relaysReading(t, s.View)
		}
		settle, err := s.read(b, want)
		if err != nil || !settle || time.Now().After(deadline) {
			return s, err
		}
		if err := waitForChange(t, s.Foreground.PID, &backoff, deadline); err != nil {
			return s, b.Closed(false)
		}
	}
}

// relaysReading is the relay's reading of the shell's state at v's offset of the stream, where the
// turn's own tracker reads typing at the prompt. The relay also keeps the prompt as it was drawn
// with nothing typed: output that left the line so (zsh drew its prompt again on a resize, the
// human erased their line) is the prompt again. The turn's stream began after that drawing. When
// the relay has read further, the caller's next look reads up to it and asks again.
func relaysReading(t *relay.Turn, v relay.View) markers.Snapshot {
	st, err := relay.QueryStatus(t.Path)
	if err != nil || st.Relay != v.Relay || st.Offset != v.Offset || st.Shell.PID != v.Shell.PID {
		return v.Shell
	}
	return st.Shell
}

func Peek(st *relay.Status, b bridge.Bridge) (*State, error) {
	s, _, err := peek(st, b)
	return s, err
}

func peek(st *relay.Status, b bridge.Bridge) (s *State, settle bool, err error) {
	s = &State{View: st.View}
	settle, err = s.read(b, Nothing)
	if err == nil && st.Call != nil {
		s.Kind = AgentCall
	}
	return s, settle, err
}

// peekSettleLimit bounds PeekSettled's wait: the moment it waits out takes a millisecond or two.
const peekSettleLimit = 200 * time.Millisecond

// PeekSettled is Peek on st, the relay's status, asked again (again) for a moment while the shell
// is only on its way back to its prompt, or about to read what reached it:
//   - its events say it runs something, it holds the terminal itself (or is a far shell), and
//     neither a call nor a command of the history runs: a call that has just returned (its
//     wrapper's last lines, the prompt hooks), no command of the user's;
//   - input waits for a shell asleep at its prompt (a focus event tmux sent as a terminal attached).
//
// A call typed then would wait for it too (Look). It returns the status it decided on.
func PeekSettled(st *relay.Status, b bridge.Bridge, again func() (*relay.Status, error)) (*relay.Status, *State, error) {
	deadline, backoff := time.Now().Add(peekSettleLimit), firstBackoff
	for {
		s, settle, err := peek(st, b)
		returning := err == nil && settle && s.Kind == Busy && st.Call == nil && st.Running == nil &&
			(s.Far != nil || s.Shell != nil && s.Foreground.PID == s.Shell.PID)
		if !returning && !(err == nil && s.arriving) || time.Now().After(deadline) {
			return st, s, err
		}
		time.Sleep(backoff)
		backoff = min(2*backoff, maxBackoff)
		next, aerr := again()
		if aerr != nil {
			return st, s, err
		}
		st = next
	}
}

// waitForChange waits for the stream to bring something, the foreground to go, or backoff (doubled
// each time): a shell or REPL about to sleep at its prompt shows it only to a later look.
func waitForChange(t *relay.Turn, fg int, backoff *time.Duration, deadline time.Time) error {
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	exited := platform.WatchExit(ctx, fg)
	t.SetReadDeadline(time.Now().Add(min(*backoff, time.Until(deadline))))
	defer t.SetReadDeadline(time.Time{})
	*backoff = min(2**backoff, maxBackoff)
	buf := make([]byte, 4096)
	for {
		n, err := t.Read(buf)
		t.Tracker.Write(buf[:n])
		select {
		case <-exited:
			return nil
		default:
		}
		if n > 0 || errors.Is(err, os.ErrDeadlineExceeded) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// read fills s; settle says that the refusal may clear in a moment.
func (s *State) read(b bridge.Bridge, want Want) (settle bool, err error) {
	panePID := s.View.PanePID
	fg, err := platform.ForegroundPID(panePID)
	if until, ok := b.LingeringUntil(); ok {
		s.Kind, s.Refusal = Lingering, &failure.Error{Code: failure.ExitBusy,
			Msg:  "no terminal of the user's shows the shared terminal (it lingers until " + until.Format("15:04") + "), so nothing was typed: nobody would see it",
			Hint: "ask the user to reopen it: run ptybridge in a terminal; then retry"}
		return false, nil
	}
	if err == nil && fg <= 0 { // the pane's shell is still starting: no foreground yet
		s.Kind, s.Refusal = Busy, &failure.Error{Code: failure.ExitBusy, Hint: "retry in a moment",
			Msg: "the shared terminal is still starting, so nothing was typed"}
		return true, nil
	}
	if err != nil {
		return false, &failure.Error{
			Msg:  fmt.Sprintf("cannot inspect the shared terminal's processes: %v", err),
			Hint: "ptysend must run on the same machine and as the same user as ptybridge; if the user just closed the terminal, ask them to restart ptybridge",
		}
	}
	args := platform.Args(fg)
	s.Foreground = Process{PID: fg, Name: platform.NameFrom(fg, args), Args: args}
	s.CopyMode = b.InCopyMode(s.View.PaneID)
	if r := LoadREPL(b); r != nil && r.InForeground(panePID) {
		s.REPL = r
	}
	if want == IntoREPL || want == CloseREPL {
		return s.readREPL(b, want)
	}
	if s.REPL != nil && want == IntoShell { // a shell command, or a second REPL: exit 125
		s.Kind, s.Refusal = REPLState, &failure.Error{
			Msg: "the REPL " + s.REPL.Program + " started with --repl-start is already running in the shared terminal, so nothing was typed",
			Hint: "evaluate in it with ptysend --repl-eval EXPR, or leave it with ptysend --repl-close first " +
				"(ptysend drives one REPL at a time)",
		}
		return false, nil
	}
	name, args := s.Foreground.Name, s.Foreground.Args
	switch sh, drivable := markers.ShellFor(name); {
	case drivable && interactive(args) && platform.SharesOurUserAndNamespaces(fg):
		s.Shell = &Shell{Process: s.Foreground, Syntax: sh, Hooks: s.View.Shell.PID == fg}
		return s.readLocal(b, want)
	case drivable && interactive(args):
		s.Shell = s.innerShell()
		return s.readFar(b, foreignVia(fg, name), want)
	}
	if err := unsupportedShell(fg); err != nil {
		s.Kind, s.Refusal = Unsupported, err
		return false, nil
	}
	s.Shell = s.innerShell()
	switch ClassifyCarrier(args) {
	case CarriesShell:
		if busy, busyArgs := carriedProgram(fg); busy != "" {
			return s.busy(busy, busyArgs)
		}
		return s.readFar(b, name, want)
	case CarriesCommand:
		return s.busy(shortCommand(args), args)
	}
	settle, err = s.busy(name, args)
	if isInterpreter(name, args) {
		s.Kind = REPLState
	}
	return settle, err
}

// readLocal: without hooks yet (they come with the line typed now), the processes and the screen vouch.
func (s *State) readLocal(b bridge.Bridge, want Want) (settle bool, err error) {
	sh, snap := s.Shell, s.View.Shell
	// bash, zsh and fish always have a line editor at their prompt (a read
	// in canonical mode is a builtin read); dash may have none.
	editor := sh.Name == "bash" || sh.Name == "zsh" || sh.Name == "fish"
	sh.TTY = platform.TTYOf(sh.PID)
	tty := platform.OpenTTY(sh.TTY) // one opening for all it tells
	if tty != nil {
		defer tty.Close()
	}
	asleep := tty != nil && platform.WaitsAtPrompt(sh.PID, tty) && (!editor || platform.EditsLines(tty))
	switch {
	case !sh.Hooks || snap.State == markers.StateRunning && execdSince(b, sh.PID, asleep):
		// A shell the human exec'd keeps the pid and last event of the one replaced, but no hooks.
		sh.NeedsHooks = true
	case snap.State == markers.StateRunning:
		return s.shellBusy()
	case snap.State == markers.StateTyped:
		return s.halfTyped()
	case snap.ViCommand:
		return s.viCommand()
	}
	if !asleep { // running, or at its prompt still drawing it or reading keys
		return s.shellBusy()
	}
	if platform.Unread(tty) > 0 { // the shell sleeps: it reads them in a moment
		s.arriving = true
		return s.halfTyped()
	}
	if sh.NeedsHooks && want != SetUp {
		return s.hooklessLine(b)
	}
	return s.idle()
}

// hooklessLine: a shell without hooks has no events that tell its prompt from keys its line
// editor has read (or, without one, the kernel holds until Enter, which its input queue does not
// count): as for a far shell, the cursor line must show an empty prompt, or one the bridge's shell
// showed empty when it was set up (a shell started inside it often draws the same).
func (s *State) hooklessLine(b bridge.Bridge) (settle bool, err error) {
	if s.CopyMode {
		return s.idle()
	}
	scr, err := tmux.Capture(s.View.PaneID) // when it fails, the line is as unclear as an unknown prompt's
	switch p := readCursorLine(scr); {
	case err == nil && p.asks:
		s.Kind, s.Refusal = Busy, askingRefusal(p.before)
	case err == nil && (p.emptyPrompt || p.after == "" && p.before == setUpPrompt(b) && p.before != ""):
		return s.idle()
	default:
		s.Kind, s.HalfTyped = HalfTyped, true
		s.Refusal = refusal(fmt.Sprintf("the shell %s (pid %d) has no ptybridge hooks yet (the user started it in the shared terminal, "+
			"or it replaced the shell there), so only the screen tells whether the user has typed at its prompt, and its cursor line %q "+
			"does not look like an empty prompt; nothing was typed", s.Shell.Name, s.Shell.PID, p.line),
			"ask the user to finish their line (Enter) or clear it (Ctrl-U) in the ptybridge terminal, then retry; "+
				"if the line is empty, its prompt does not end as ptysend expects ($, #, %, > or ❯): ask the user to leave that shell (exit), then retry")
	}
	return true, nil
}

// RecordSetUpPrompt keeps the cursor line of a shell just set up at its empty prompt, up to the
// cursor: a shell without hooks that shows the same waits at an empty prompt too.
func RecordSetUpPrompt(b bridge.Bridge, paneID string) {
	scr, err := tmux.Capture(paneID)
	if err != nil || scr.InMode || scr.Alternate {
		return
	}
	if p := readCursorLine(scr); strings.TrimSpace(p.before) != "" && !p.asks && p.after == "" {
		os.WriteFile(b.File(".prompt"), []byte(p.before), 0o600)
	}
}

// setUpPrompt is the prompt RecordSetUpPrompt kept, "" when none.
func setUpPrompt(b bridge.Bridge) string {
	rec, _ := os.ReadFile(b.File(".prompt"))
	return string(rec)
}

func RecordHooked(b bridge.Bridge, pid int) {
	if img := platform.ExecImage(pid); img != "" {
		os.WriteFile(b.File(".hooked"), []byte(img), 0o600)
	}
}

// execdSince: the shell pid, whose last event said it runs a command, waits at its prompt as
// another program than the hooked one (the human exec'd a shell). Still the hooked one, it runs a
// user command's line editor (fish's read, bash's read -e).
func execdSince(b bridge.Bridge, pid int, asleep bool) bool {
	if !asleep || !platform.AtLineEditor(pid) {
		return false
	}
	rec, err := os.ReadFile(b.File(".hooked"))
	img := platform.ExecImage(pid)
	return err != nil || img == "" || string(rec) != img
}

// innerShell is our innermost shell running the foreground (bash in fish, an editor's), or nil.
func (s *State) innerShell() *Shell {
	for pid, steps := platform.Parent(s.Foreground.PID), 0; pid > 1 && steps < 64; pid, steps = platform.Parent(pid), steps+1 {
		name, args := platform.Name(pid), platform.Args(pid)
		if sh, ok := markers.ShellFor(name); ok && interactive(args) && platform.SharesOurUserAndNamespaces(pid) {
			return &Shell{Process: Process{PID: pid, Name: name, Args: args}, Syntax: sh, Hooks: s.View.Shell.PID == pid}
		}
		if pid == s.View.PanePID {
			break
		}
	}
	return nil
}

// interactive: no script, no -c: the shell reads the terminal.
func interactive(args []string) bool {
	for _, a := range args[min(1, len(args)):] {
		if a == "-c" || !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}

// unsupportedShell refuses an undrivable shell as pid (comm names xonsh, which runs as python3).
func unsupportedShell(pid int) error {
	for _, name := range []string{platform.Name(pid), platform.Comm(pid)} {
		if markers.Unsupported(name) {
			return &failure.Error{
				Msg: fmt.Sprintf("the shared terminal runs %s, a shell ptysend cannot drive", name),
				Hint: fmt.Sprintf("ptysend supports %s: ask the user to start one of them in the ptybridge terminal (e.g. type bash there), or to leave %s, then retry",
					markers.Supported, name),
			}
		}
	}
	return nil
}
