package look

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/rundir"
)

// Session is one line of ptysend --sessions: a bridge of the user's,
// where its shell runs and whether it is free.
type Session struct {
	Name string `json:"name"`
	// User and Host are where the agent's commands run; Shell the shell
	// there; Far whether it is behind a carrier (Via: ssh, su, sudo...).
	User  string `json:"user,omitempty"`
	Host  string `json:"host,omitempty"`
	Shell string `json:"shell,omitempty"`
	Far   bool   `json:"far"`
	Via   string `json:"via,omitempty"`
	// Command is what the bridge was opened with (ptybridge -- COMMAND).
	Command string `json:"command,omitempty"`
	// State is "free" or "busy"; Busy says with what.
	State    string `json:"state"`
	Busy     string `json:"busy,omitempty"`
	Attached int    `json:"attached"`
}

// Sessions describes the user's bridges: one tmux call lists them, each
// one's relay and a look at its pane say where and how it is. It repairs
// no relay.
func Sessions(exe string) []Session {
	var list []Session
	for _, s := range bridge.List() {
		list = append(list, describe(s, bridge.Bridge{Name: s.Name, RuntimeDir: rundir.Path(), Exe: exe}))
	}
	return list
}

func describe(s bridge.Session, b bridge.Bridge) Session {
	out := Session{Name: s.Name, Attached: s.Attached, Command: s.Command, State: "busy"}
	a, err := relay.QueryStatus(b.SocketPath())
	if err != nil {
		out.Busy = "its relay does not answer (the next ptysend call repairs it)"
		return out
	}
	st, err := pane.Peek(a, b)
	if err != nil {
		out.Busy = failure.From(err).Msg
		return out
	}
	switch {
	case st.Far != nil:
		out.Far, out.Via = true, st.Far.Via
		if rec := st.Far.Record; rec != nil {
			out.User, out.Host, out.Shell = rec.User, rec.Host, string(rec.Kind)
		}
	case st.Shell != nil:
		out.User, out.Shell = rundir.UserName(), st.Shell.Name
		out.Host, _ = os.Hostname()
	}
	switch {
	case st.Kind == pane.AgentCall:
		out.Busy = "a ptysend call is running in it"
		if a.Call.Call != "" {
			out.Busy += ": " + a.Call.Call
		}
	case st.Kind == pane.Idle:
		out.State = "free"
	case st.Refusal != nil:
		out.Busy = failure.From(st.Refusal).Msg
	default:
		out.Busy = st.Kind
	}
	return out
}

// PrintSessions writes the bridges, one line each, or as JSON.
func PrintSessions(w io.Writer, list []Session, asJSON bool) error {
	if asJSON {
		if list == nil {
			list = []Session{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "no bridge is running: ask the user to start one with ptybridge")
		return nil
	}
	for _, s := range list {
		where := "?"
		if s.User != "" {
			where = s.User + "@" + s.Host
		}
		shell := cmp.Or(s.Shell, "shell not known yet")
		if s.Far {
			shell += " via " + s.Via
		} else {
			shell += " (local)"
		}
		state := s.State
		if s.Busy != "" {
			state += ": " + s.Busy
		}
		terms := fmt.Sprintf("%d terminal", s.Attached)
		if s.Attached != 1 {
			terms += "s"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", s.Name, where, shell, state, terms)
	}
	return nil
}
