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
	"strconv"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// The states of the terminal, most telling first: a ptysend call holds
// it, a REPL runs in it, a shell ptysend cannot drive, a program or a
// command of the shell's, copy mode, a half-typed line; else idle. One
// look decides them (internal/pane).
const (
	StateIdle        = pane.Idle
	StateAgentCall   = pane.AgentCall
	StateREPL        = pane.REPLState
	StateUnsupported = pane.Unsupported
	StateBusy        = pane.Busy
	StateCopyMode    = pane.CopyMode
	StateTyped       = pane.HalfTyped
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

// ReadStatus finds out the terminal's state: the relay's answer and one
// look at the pane (pane.Peek). It types nothing.
func ReadStatus(b bridge.Bridge) (*Status, error) {
	a, err := b.Status()
	if err != nil {
		return &Status{Bridge: "down", Session: b.Name, State: StateNoBridge}, err
	}
	st, err := pane.Peek(a, b)
	s := &Status{Bridge: "up", Session: b.Name, AgentCall: a.Call, Confirm: bridge.ConfirmRequired(b.SocketPath())}
	if err != nil {
		s.State, s.Hint = StateBusy, failure.From(err).Hint
		return s, nil
	}
	s.compose(st, a)
	return s, nil
}

// compose puts the look's state together with the relay's answer.
func (s *Status) compose(st *pane.State, a *relay.Status) {
	s.State, s.CopyMode, s.HalfTyped = st.Kind, st.CopyMode, st.HalfTyped
	if st.Refusal != nil {
		s.Hint = failure.From(st.Refusal).Hint
	}
	fg := st.Foreground
	if sh := st.Shell; sh != nil {
		s.Shell = shellOf(sh, a)
		if a.Running != nil && (a.Running.ShellPID == sh.PID || a.Running.ShellPID == 0) {
			s.Running = a.Running
		}
		if fg.PID != sh.PID && st.Far == nil {
			s.Program = &Program{Name: fg.Name, PID: fg.PID, CommandLine: fg.Args, Since: startOf(fg.PID)}
			if s.Running != nil && s.Running.Start.Before(s.Program.Since) {
				s.Program.Since = s.Running.Start
			}
		}
	}
	switch {
	case st.Far != nil:
		s.composeFar(st, a)
	case st.REPL != nil:
		program := platform.Name(st.REPL.PID)
		if program == "" {
			program = st.REPL.Program
		}
		s.REPL = &REPL{Program: program, StartedBy: relay.ByAgent, Command: st.REPL.Command, PID: st.REPL.PID, Since: startOf(st.REPL.PID)}
		s.State, s.Program = StateREPL, nil
		s.Hint = "evaluate in it with ptysend --repl-eval EXPR, or leave it with ptysend --repl-close"
	case st.Kind == StateREPL:
		s.REPL = &REPL{Program: fg.Name, StartedBy: relay.ByUser, Command: strings.Join(fg.Args, " "), PID: fg.PID, Since: startOf(fg.PID)}
		if s.Program != nil {
			s.REPL.Since = s.Program.Since
		}
	case st.Kind == StateUnsupported:
		s.Program = &Program{Name: fg.Name, PID: fg.PID, CommandLine: fg.Args, Since: startOf(fg.PID)}
		s.Hint = fmt.Sprintf("ptysend supports %s: ask the user to start one of them in the ptybridge terminal, or to leave %s", markers.Supported, fg.Name)
	case st.Kind == StateIdle && s.Running != nil:
		// The shell itself runs a command (a loop of builtins, a read)
		// that the look could not see.
		s.State = StateBusy
		s.Hint = "ask the user to let it finish, or to press Ctrl-C in the ptybridge terminal, then retry"
	}
	if s.AgentCall != nil {
		s.State = StateAgentCall
		s.Hint = "wait for that ptysend call to finish: a command run now waits its turn"
	}
	s.Free = s.State == StateIdle
	if s.Free {
		s.Hint = ""
	}
}

// shellOf is what the status says of a shell of the pane.
func shellOf(sh *pane.Shell, a *relay.Status) *Shell {
	// The hooks have spoken in it: its events are the relay's last, or
	// the command it runs is the history's.
	hooks := sh.Hooks || a.Running != nil && a.Running.ShellPID == sh.PID
	out := &Shell{Kind: sh.Name, PID: sh.PID, Hooks: hooks}
	out.Cwd, _ = platform.Cwd(sh.PID)
	if out.Cwd == "" && out.Hooks {
		out.Cwd = a.ShellDir
	}
	if uid, err := platform.ProcessOwner(sh.PID); err == nil {
		out.User = strconv.Itoa(uid)
		if u, err := user.LookupId(out.User); err == nil {
			out.User = u.Username
		}
	}
	return out
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
