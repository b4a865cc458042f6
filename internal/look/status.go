// Package look is ptysend's read-only modes: --status (is the shared terminal free, and if not,
// what holds it), --sessions, --history (the commands run at the shell's prompt) and --output (what
// one printed). They ask the relay, which answers even while a call holds the pane, and one look at
// the pane (internal/pane); they never type, and run no tmux process unless the relay must be
// repaired.
package look

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
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

const stateNoBridge = "no_bridge" // the other states are pane's

type Status struct {
	Bridge    string       `json:"bridge" jsonschema:"up or down"` // "up" or "down"
	Session   string       `json:"session"`
	State     string       `json:"state" jsonschema:"idle, or what holds the terminal: a program, a REPL, copy mode, a half-typed line, vi command mode"`
	Free      bool         `json:"free" jsonschema:"a command would run now"`                       // a command (ptysend -- WORDS) would run now
	Hint      string       `json:"hint,omitempty" jsonschema:"when not free: what to ask the user"` // what to ask the user when it is not free
	Shell     *Shell       `json:"shell,omitempty"`
	Program   *Program     `json:"program,omitempty"`
	REPL      *REPL        `json:"repl,omitempty"`
	Running   *relay.Entry `json:"running_command,omitempty"`
	CopyMode  bool         `json:"copy_mode"`
	HalfTyped bool         `json:"half_typed_line"`
	AgentCall *relay.Call  `json:"agent_call,omitempty"`
	Confirm   bool         `json:"confirm"`       // ptybridge --confirm
	Far       *Far         `json:"far,omitempty"` // a shell behind a carrier runs the agent's commands
	// LingeringUntil is when the session ends if no terminal of the user's opens it (ptybridge --linger).
	LingeringUntil *time.Time `json:"lingering_until,omitempty"`
}

type Shell struct {
	Kind  string `json:"kind"` // bash, zsh, fish, dash...
	PID   int    `json:"pid"`
	User  string `json:"user"`
	Cwd   string `json:"cwd"`
	Hooks bool   `json:"hooks"` // the shell integration is installed (its events were seen)
}

type Program struct {
	Name        string    `json:"name"`
	PID         int       `json:"pid"`
	CommandLine []string  `json:"command_line"`
	Since       time.Time `json:"since"`
}

type REPL struct {
	Program   string    `json:"program"`
	StartedBy string    `json:"started_by"` // "agent" for one of --repl-start, else "user"
	Command   string    `json:"command"`
	PID       int       `json:"pid"`
	Since     time.Time `json:"since"`
}

type Far struct {
	Via   string `json:"via"`            // the carrier: ssh, su, sudo...
	Kind  string `json:"kind,omitempty"` // bash, zsh, fish, sh: once probed
	User  string `json:"user,omitempty"` // once a call ran there
	Host  string `json:"host,omitempty"`
	Hooks bool   `json:"hooks"` // a call installed them there: their events say whether it waits at its prompt
}

func ReadStatus(b bridge.Bridge) (*Status, error) {
	a, err := b.Status()
	if err != nil {
		return &Status{Bridge: "down", Session: b.Name, State: stateNoBridge}, err
	}
	a, st, err := pane.PeekSettled(a, b, b.Status)
	s := &Status{Bridge: "up", Session: b.Name, AgentCall: a.Call, Confirm: bridge.ConfirmRequired(b.SocketPath())}
	if err != nil {
		s.State, s.Hint = pane.Busy, failure.From(err).Hint
		return s, nil
	}
	s.compose(st, a)
	if until, ok := b.LingeringUntil(); ok {
		s.LingeringUntil = &until
	}
	return s, nil
}

func (s *Status) compose(st *pane.State, a *relay.Status) {
	s.State, s.CopyMode, s.HalfTyped = st.Kind, st.CopyMode, st.HalfTyped
	if st.Refusal != nil {
		s.Hint = failure.From(st.Refusal).Hint
	}
	fg := st.Foreground
	if sh := st.Shell; sh != nil && st.Far == nil {
		s.Shell = shellOf(sh, a)
		if a.Running != nil && (a.Running.ShellPID == sh.PID || a.Running.ShellPID == 0) {
			s.Running = a.Running
		}
		if fg.PID != sh.PID {
			s.Program = programOf(fg)
			if s.Running != nil && s.Running.Start.Before(s.Program.Since) {
				s.Program.Since = s.Running.Start
			}
		}
	}
	switch {
	case st.Far != nil:
		// /proc describes the local end only: the far shell's state is its
		// hooks' (the relay's snapshot), its command the history's.
		s.Far = &Far{Via: st.Far.Via}
		if rec := st.Far.Record; rec != nil {
			s.Far.Kind, s.Far.User, s.Far.Host = string(rec.Kind), rec.User, rec.Host
			s.Far.Hooks = rec.Hooked && a.Shell.PID == rec.PID
			if s.Far.Hooks && a.Running != nil && a.Running.ShellPID == rec.PID {
				s.Running = a.Running
			}
		}
		if !s.Far.Hooks && st.Kind != pane.CopyMode { // only a call can tell (pane.readFar)
			s.State, s.Hint, s.HalfTyped = pane.Idle, "", false
		}
	case st.REPL != nil:
		program := cmp.Or(platform.Name(st.REPL.PID), st.REPL.Program)
		s.REPL = &REPL{Program: program, StartedBy: relay.ByAgent, Command: st.REPL.Command, PID: st.REPL.PID, Since: startOf(st.REPL.PID)}
		s.State, s.Program = pane.REPLState, nil
		s.Hint = "evaluate in it with ptysend --repl-eval EXPR, or leave it with ptysend --repl-close"
	case st.Kind == pane.REPLState:
		s.REPL = &REPL{Program: fg.Name, StartedBy: relay.ByUser, Command: strings.Join(fg.Args, " "), PID: fg.PID, Since: startOf(fg.PID)}
		if s.Program != nil {
			s.REPL.Since = s.Program.Since
		}
	case st.Kind == pane.Unsupported:
		s.Program = programOf(fg)
		s.Hint = fmt.Sprintf("ptysend supports %s: ask the user to start one of them in the ptybridge terminal, or to leave %s", markers.Supported, fg.Name)
	case st.Kind == pane.Idle && s.Running != nil: // the shell runs what a look cannot see (a loop of builtins, a read)
		s.State, s.Hint = pane.Busy, "ask the user to let it finish, or to press Ctrl-C in the ptybridge terminal, then retry"
	}
	if s.AgentCall != nil {
		s.State, s.Hint = pane.AgentCall, "wait for that ptysend call to finish: a command run now waits its turn"
	}
	s.Free = s.State == pane.Idle
	s.Hint = choose(s.Free, "", s.Hint)
}

func shellOf(sh *pane.Shell, a *relay.Status) *Shell {
	// The hooks have spoken in it: its events are the relay's last, or its command the history's.
	hooks := sh.Hooks || a.Running != nil && a.Running.ShellPID == sh.PID
	out := &Shell{Kind: sh.Name, PID: sh.PID, Hooks: hooks}
	out.Cwd, _ = platform.Cwd(sh.PID)
	if out.Cwd == "" && out.Hooks {
		out.Cwd = a.ShellDir
	}
	if uid, err := platform.ProcessOwner(sh.PID); err == nil {
		out.User = cmp.Or(platform.UserName(uid), strconv.Itoa(uid))
	}
	return out
}

func programOf(p pane.Process) *Program {
	return &Program{Name: p.Name, PID: p.PID, CommandLine: p.Args, Since: startOf(p.PID)}
}

func startOf(pid int) time.Time {
	t, _ := platform.StartTime(pid)
	return t
}

func (s *Status) ExitCode() int {
	if s.Free {
		return 0
	}
	return failure.ExitBusy
}

// Print writes once: the JSON encoder does too.
func (s *Status) Print(out io.Writer, asJSON bool) error {
	if asJSON {
		return json.NewEncoder(out).Encode(s)
	}
	var w bytes.Buffer
	s.print(&w, time.Now())
	_, err := out.Write(w.Bytes())
	return err
}

func (s *Status) print(w io.Writer, now time.Time) {
	if s.Bridge != "up" {
		fmt.Fprintf(w, "bridge: down (no bridge session %s is running)\nfree: no\n", s.Session)
		return
	}
	const noHooks = "; its hooks are not installed yet (the first ptysend command installs them)"
	fmt.Fprintf(w, "bridge: up (session %s)\n", s.Session)
	if sh := s.Shell; sh != nil {
		fmt.Fprintf(w, "shell: %s (pid %d), user %s, in %s%s\n", sh.Kind, sh.PID, sh.User, cmp.Or(sh.Cwd, unknownDir), choose(sh.Hooks, "", noHooks))
	}
	if f := s.Far; f != nil {
		where := choose(f.User != "", f.User+"@"+f.Host, "not known yet (the first ptysend command there asks)")
		kind := cmp.Or(f.Kind, "a shell not probed yet")
		fmt.Fprintf(w, "far: commands run at the far end of %s: %s, %s%s\n", f.Via, where, kind, choose(f.Hooks, "", noHooks))
	}
	fmt.Fprintf(w, "state: %s\n", s.describe(now))
	if s.Running != nil {
		fmt.Fprintf(w, "running: #%d %s: %s, since %s\n", s.Running.ID, s.Running.Who, oneLine(s.Running.Command), since(s.Running.Start, now))
	}
	fmt.Fprintf(w, "copy mode: %s\nhalf-typed line: %s\n", choose(s.CopyMode, "yes", "no"), choose(s.HalfTyped, "yes", "no"))
	if c := s.AgentCall; c == nil {
		fmt.Fprintf(w, "agent call: none\n")
	} else {
		call := choose(c.Call == "", "a call that has not said what it runs", strconv.Quote(c.Call))
		fmt.Fprintf(w, "agent call: %s, since %s, %d queued behind it\n", call, since(c.Since, now), c.Queued)
	}
	fmt.Fprintf(w, "confirm: %s\n", choose(s.Confirm, "on (the user approves each command before it runs: ptybridge --confirm)", "off"))
	fmt.Fprintf(w, "free: %s\n", choose(s.Free, "yes", "no; "+s.Hint))
}

func (s *Status) describe(now time.Time) string {
	switch s.State {
	case pane.Idle:
		return "idle (at the shell's prompt)"
	case pane.AgentCall:
		return "a ptysend call holds the terminal"
	case pane.REPLState:
		r := s.REPL
		by := choose(r.StartedBy == relay.ByAgent, "started with --repl-start "+strconv.Quote(r.Command), "started by the user")
		return fmt.Sprintf("a REPL is open: %s (pid %d, %s), since %s", r.Program, r.PID, by, since(r.Since, now))
	case pane.Unsupported:
		return fmt.Sprintf("a shell ptysend cannot drive runs: %s (pid %d)", s.Program.Name, s.Program.PID)
	case pane.Busy:
		if p := s.Program; p != nil {
			return fmt.Sprintf("busy: %s (pid %d) runs, since %s", p.Name, p.PID, since(p.Since, now))
		}
		return "busy: the shell runs a command"
	case pane.CopyMode:
		return "copy mode: the user is scrolling back"
	case pane.HalfTyped:
		return "a half-typed line at the prompt"
	case pane.ViCommand:
		return "the prompt's line editor is in vi command mode (the user pressed Esc)"
	case pane.Lingering:
		until := ""
		if s.LingeringUntil != nil {
			until = " until " + clock(*s.LingeringUntil, now)
		}
		return "lingering" + until + ": no terminal of the user's is open (ptybridge --linger)"
	}
	return s.State
}

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

func choose(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}

const unknownDir = "an unknown directory"
