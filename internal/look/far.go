package look

import (
	"fmt"
	"io"

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

// composeFar fills s for a far shell in the pane: /proc describes the
// local end only, so the far shell's state is its hooks' (the relay's
// snapshot), its command the history's.
func (s *Status) composeFar(st *pane.State, a *relay.Status) {
	f := st.Far
	s.Far = &Far{Via: f.Via}
	s.Shell, s.Running, s.Program = nil, nil, nil
	if rec := f.Record; rec != nil {
		s.Far.Kind, s.Far.User, s.Far.Host = string(rec.Kind), rec.User, rec.Host
		s.Far.Hooks = rec.Hooked && a.Shell.PID == rec.PID
		if s.Far.Hooks && a.Running != nil && a.Running.ShellPID == rec.PID {
			s.Running = a.Running
		}
	}
	if !s.Far.Hooks && st.Kind != StateCopyMode {
		// Without hooks only a call can tell: it looks at the screen and
		// asks the shell first, and refuses what it cannot drive.
		s.State, s.Hint, s.HalfTyped = StateIdle, "", false
	}
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
