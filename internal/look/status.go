// Package look is ptysend's read-only modes: --status (is the shared
// terminal free, and if not, what holds it), --history (the commands run
// at the shell's prompt, by the user or the agent) and --output (what one
// of them printed). They ask the relay (bridge.Query), which answers from
// its memory while a call holds the pane, and read the processes (through
// internal/platform) and the bridge's own files; they never type, and run
// no tmux process unless the relay must be repaired.
package look

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/repl"
)

// The states of the terminal, most telling first: a ptysend call holds
// it, a REPL runs in it, a shell ptysend cannot drive, a program or a
// command of the shell's, copy mode, a half-typed line; else idle.
const (
	StateIdle        = "idle"
	StateAgentCall   = "agent_call"
	StateREPL        = "repl"
	StateUnsupported = "unsupported_shell"
	StateBusy        = "busy"
	StateCopyMode    = "copy_mode"
	StateTyped       = "half_typed_line"
	StateNoBridge    = "no_bridge"
)

// Status is what ptysend --status says, and --status --json prints.
type Status struct {
	Bridge  string `json:"bridge"` // "up" or "down"
	Session string `json:"session"`
	State   string `json:"state"`
	// Free: a command (ptysend -- WORDS) would run now.
	Free bool `json:"free"`
	// Hint: what to ask the user when it is not free.
	Hint  string `json:"hint,omitempty"`
	Shell *Shell `json:"shell,omitempty"`
	// Program is what runs in the foreground when it is not the shell.
	Program *Program `json:"program,omitempty"`
	REPL    *REPL    `json:"repl,omitempty"`
	// Running is the command the shell runs, from the history.
	Running   *relay.Entry `json:"running_command,omitempty"`
	CopyMode  bool         `json:"copy_mode"`
	HalfTyped bool         `json:"half_typed_line"`
	AgentCall *relay.Call  `json:"agent_call,omitempty"`
	// Confirm: the user approves each command of the agent's
	// (ptybridge --confirm).
	Confirm bool `json:"confirm"`
	// Far: the agent's commands run in a shell behind a carrier (far.go).
	Far *Far `json:"far,omitempty"`
}

// Shell is the shell of the pane: the one in the foreground, or the one
// that runs the program in the foreground.
type Shell struct {
	Kind string `json:"kind"` // bash, zsh, fish, dash...
	PID  int    `json:"pid"`
	User string `json:"user"`
	Cwd  string `json:"cwd"`
	// Hooks: the shell integration is installed (its events were seen).
	Hooks bool `json:"hooks"`
}

// Program is a process in the foreground of the pane.
type Program struct {
	Name        string    `json:"name"`
	PID         int       `json:"pid"`
	CommandLine []string  `json:"command_line"`
	Since       time.Time `json:"since"`
}

// REPL is an interpreter at its prompt in the pane.
type REPL struct {
	Program string `json:"program"`
	// StartedBy is "agent" for one of --repl-start, else "user".
	StartedBy string    `json:"started_by"`
	Command   string    `json:"command"`
	PID       int       `json:"pid"`
	Since     time.Time `json:"since"`
}

// ReadStatus finds out the terminal's state.
func ReadStatus(b bridge.Bridge, maxTime time.Duration, stderr io.Writer) (*Status, error) {
	a, _, err := b.Query("status", maxTime, stderr)
	if err != nil {
		return &Status{Bridge: "down", Session: b.Name, State: StateNoBridge}, err
	}
	return compose(b, a), nil
}

// compose puts the relay's answer together with what /proc and the
// bridge's files say.
func compose(b bridge.Bridge, a *relay.Answer) *Status {
	s := &Status{Bridge: "up", Session: b.Name, AgentCall: a.Call, CopyMode: b.InCopyMode(),
		Confirm: bridge.ConfirmRequired(b.SocketPath())}
	snap := a.Snapshot()
	fg, err := platform.ForegroundPID(a.PanePID)
	if err != nil {
		s.State, s.Hint = StateBusy, "the shell of the shared terminal is gone: ask the user to restart ptybridge"
		return s
	}
	fgArgs := platform.Args(fg)
	fgName := nameOf(fg, fgArgs)
	shellPID := a.PanePID
	switch {
	case pane.IsDrivableShell(fgName, fgArgs):
		shellPID = fg
	case snap.PID > 0 && platform.SameTerminal(snap.PID, a.PanePID):
		shellPID = snap.PID // the innermost shell with hooks runs the program
	}
	shellName := fgName
	if shellPID != fg {
		shellName = platform.Name(shellPID)
	}
	s.Shell = shellOf(shellPID, shellName, snap, a)
	if a.Running != nil && (a.Running.ShellPID == shellPID || a.Running.ShellPID == 0) {
		s.Running = a.Running
	}

	if composeFar(b, a, s) {
		// The far shell's state is set.
	} else if st, ok := repl.Running(b, a.PanePID); ok {
		program := platform.Name(st.PID)
		if program == "" {
			program = st.Program
		}
		s.REPL = &REPL{Program: program, StartedBy: relay.ByAgent, Command: st.Command, PID: st.PID, Since: startOf(st.PID)}
		s.State = StateREPL
		s.Hint = "evaluate in it with ptysend --repl-eval EXPR, or leave it with ptysend --repl-close"
	} else if fg != shellPID {
		s.Program = &Program{Name: fgName, PID: fg, CommandLine: fgArgs, Since: startOf(fg)}
		if s.Running != nil && s.Running.Start.Before(s.Program.Since) {
			s.Program.Since = s.Running.Start
		}
		s.State, s.Hint = StateBusy, pane.BusyHint(fgName, fgArgs)
		if name, ok := pane.IsUnsupportedShell(fg); ok {
			s.State = StateUnsupported
			s.Hint = fmt.Sprintf("ptysend supports %s: ask the user to start one of them in the ptybridge terminal, or to leave %s", markers.Supported, name)
		} else if pane.IsInterpreter(fgName, fgArgs) {
			s.REPL = &REPL{Program: fgName, StartedBy: relay.ByUser, Command: joinArgs(fgArgs), PID: fg, Since: s.Program.Since}
			s.State = StateREPL
		}
	} else if s.Running != nil {
		// The shell itself runs a command (a loop of builtins, a read).
		s.State = StateBusy
		s.Hint = "ask the user to let it finish, or to press Ctrl-C in the ptybridge terminal, then retry"
	} else if snap.PID == shellPID && snap.State == markers.StateTyped || platform.TypedAhead(shellPID) {
		s.HalfTyped = true
		s.State, s.Hint = StateTyped, pane.HalfTypedError.Hint
	} else {
		s.State = StateIdle
	}
	if s.CopyMode && (s.State == StateIdle || s.State == StateTyped) {
		s.State, s.Hint = StateCopyMode, pane.CopyModeError.Hint
	}
	if s.AgentCall != nil {
		s.State = StateAgentCall
		s.Hint = "wait for that ptysend call to finish: a command run now waits its turn"
	}
	s.Free = s.State == StateIdle
	return s
}

// nameOf is what platform.Name says of pid, from its command line read already.
func nameOf(pid int, args []string) string {
	if len(args) > 0 && args[0] != "" {
		return strings.TrimPrefix(filepath.Base(args[0]), "-")
	}
	return platform.Comm(pid)
}

func shellOf(pid int, name string, snap markers.Snapshot, a *relay.Answer) *Shell {
	// The hooks have spoken in it: its events are the relay's last, or
	// the command it runs is the history's.
	hooks := snap.PID == pid || a.Running != nil && a.Running.ShellPID == pid
	cwd, _ := platform.Cwd(pid)
	sh := &Shell{Kind: name, PID: pid, Cwd: cwd, Hooks: hooks}
	if sh.Cwd == "" && sh.Hooks {
		sh.Cwd = a.ShellDir
	}
	if uid, err := platform.ProcessOwner(pid); err == nil {
		sh.User = strconv.Itoa(uid)
		if u, err := user.LookupId(sh.User); err == nil {
			sh.User = u.Username
		}
	}
	return sh
}

func startOf(pid int) time.Time {
	t, _ := platform.StartTime(pid)
	return t
}

// ExitCode is --status's exit status: 0 when a command would run now,
// 75 when the terminal is busy (try again later).
func (s *Status) ExitCode() int {
	if s.Free {
		return 0
	}
	return failure.ExitBusy
}

// Print writes the status as lines of "what: value", or as one JSON
// object, in one write.
func (s *Status) Print(out io.Writer, asJSON bool) error {
	var w bytes.Buffer
	s.print(&w, asJSON)
	_, err := out.Write(w.Bytes())
	return err
}

func (s *Status) print(w io.Writer, asJSON bool) error {
	if asJSON {
		out, err := json.Marshal(s)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", out)
		return err
	}
	now := time.Now()
	if s.Bridge != "up" {
		_, err := fmt.Fprintf(w, "bridge: down (no bridge session %s is running)\nfree: no\n", s.Session)
		return err
	}
	fmt.Fprintf(w, "bridge: up (session %s)\n", s.Session)
	if sh := s.Shell; sh != nil {
		hooks := ""
		if !sh.Hooks {
			hooks = "; its hooks are not installed yet (the first ptysend command installs them)"
		}
		fmt.Fprintf(w, "shell: %s (pid %d), user %s, in %s%s\n", sh.Kind, sh.PID, sh.User, orUnknown(sh.Cwd), hooks)
	}
	s.printFar(w)
	fmt.Fprintf(w, "state: %s\n", s.describe(now))
	if s.Running != nil {
		fmt.Fprintf(w, "running: #%d %s: %s, since %s\n", s.Running.ID, s.Running.Who, oneLine(s.Running.Command), since(s.Running.Start, now))
	}
	fmt.Fprintf(w, "copy mode: %s\nhalf-typed line: %s\n", yesNo(s.CopyMode), yesNo(s.HalfTyped))
	if c := s.AgentCall; c != nil {
		call := strconv.Quote(c.Call)
		if c.Call == "" {
			call = "a call that has not said what it runs"
		}
		fmt.Fprintf(w, "agent call: %s, since %s, %d queued behind it\n", call, since(c.Since, now), c.Queued)
	} else {
		fmt.Fprintf(w, "agent call: none\n")
	}
	if s.Confirm {
		fmt.Fprintf(w, "confirm: on (the user approves each command before it runs: ptybridge --confirm)\n")
	} else {
		fmt.Fprintf(w, "confirm: off\n")
	}
	free := "yes"
	if !s.Free {
		free = "no; " + s.Hint
	}
	_, err := fmt.Fprintf(w, "free: %s\n", free)
	return err
}

// describe says the state in words.
func (s *Status) describe(now time.Time) string {
	switch s.State {
	case StateIdle:
		return "idle (at the shell's prompt)"
	case StateAgentCall:
		return "a ptysend call holds the terminal"
	case StateREPL:
		r := s.REPL
		by := "started by the user"
		if r.StartedBy == relay.ByAgent {
			by = "started with --repl-start " + strconv.Quote(r.Command)
		}
		return fmt.Sprintf("a REPL is open: %s (pid %d, %s), since %s", r.Program, r.PID, by, since(r.Since, now))
	case StateUnsupported:
		return fmt.Sprintf("a shell ptysend cannot drive runs: %s (pid %d)", s.Program.Name, s.Program.PID)
	case StateBusy:
		if p := s.Program; p != nil {
			return fmt.Sprintf("busy: %s (pid %d) runs, since %s", p.Name, p.PID, since(p.Since, now))
		}
		return "busy: the shell runs a command"
	case StateCopyMode:
		return "copy mode: the user is scrolling back"
	case StateTyped:
		return "a half-typed line at the prompt"
	}
	return s.State
}

// since is a time of today as 15:04:05 (older ones with their date), and
// how long ago it was.
func since(t, now time.Time) string {
	if t.IsZero() {
		return "an unknown time"
	}
	return fmt.Sprintf("%s (%s ago)", clock(t, now), duration(now.Sub(t)))
}

func clock(t, now time.Time) string {
	t = t.Local()
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04:05")
	}
	return t.Format("2006-01-02 15:04:05")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orUnknown(s string) string {
	if s == "" {
		return "an unknown directory"
	}
	return s
}

func joinArgs(args []string) string { return strings.Join(args, " ") }
