package look

import (
	"fmt"
	"io"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// Far is the shell at the far end of a carrier in the pane (ssh, su,
// sudo -i, docker exec...), which ptysend drives through the terminal
// stream: where the agent's commands run.
type Far struct {
	Via  string `json:"via"`            // the carrier: ssh, su, sudo...
	Kind string `json:"kind,omitempty"` // bash, zsh, fish, sh: once probed
	User string `json:"user,omitempty"` // once a call ran there
	Host string `json:"host,omitempty"`
	// Hooks: a call ran there and installed them; their events say
	// whether it waits at its prompt.
	Hooks bool `json:"hooks"`
}

// composeFar fills s for a far shell in the pane; false when the pane's
// foreground is no carrier of one.
func composeFar(b bridge.Bridge, a *relay.Answer, s *Status) bool {
	t, err := pane.LocateNow(a.PanePID)
	if err != nil || !t.Far {
		return false
	}
	s.Far = &Far{Via: t.Name}
	// /proc describes the local end only: the far shell's state is its
	// hooks' (the relay's snapshot), its command the history's.
	s.Shell, s.Running = nil, nil
	snap := a.Snapshot()
	rec := pane.FarRecordFor(b, t.PID)
	if rec != nil {
		s.Far.Kind, s.Far.User, s.Far.Host = string(rec.Kind), rec.User, rec.Host
		s.Far.Hooks = rec.Hooked && snap.PID == rec.PID
		if s.Far.Hooks && a.Running != nil && a.Running.ShellPID == rec.PID {
			s.Running = a.Running
		}
	}
	switch {
	case s.Far.Hooks && snap.State == markers.StateRunning:
		s.State = StateBusy
		s.Hint = "ask the user to let the command at the far end finish, or to press Ctrl-C in the ptybridge terminal, then retry"
	case s.Far.Hooks && snap.State == markers.StateTyped:
		s.HalfTyped = true
		s.State, s.Hint = StateTyped, pane.HalfTypedError.Hint
	default:
		// Without hooks only a call can tell: it looks at the screen and
		// asks the shell first, and refuses what it cannot drive.
		s.State = StateIdle
	}
	return true
}

// printFar writes the far line of the status.
func (s *Status) printFar(w io.Writer) {
	f := s.Far
	if f == nil {
		return
	}
	where := "not known yet (the first ptysend command there asks)"
	if f.User != "" {
		where = f.User + "@" + f.Host
	}
	kind := f.Kind
	if kind == "" {
		kind = "a shell not probed yet"
	}
	hooks := ""
	if !f.Hooks {
		hooks = "; its hooks are not installed yet (the first ptysend command installs them)"
	}
	fmt.Fprintf(w, "far: commands run at the far end of %s: %s, %s%s\n", f.Via, where, kind, hooks)
}
