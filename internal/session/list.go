package session

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/rundir"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// Bridge is one line of ptysend --sessions: a bridge of the user's, where
// its shell runs and whether it is free.
type Bridge struct {
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

// turnPeek bounds the wait for the relay's greeting: a call holding the
// pane means busy.
const turnPeek = 150 * time.Millisecond

// List describes the user's bridges: the tmux sessions of the default
// server that carry the @ptybridge_pane option.
func List(exe string) ([]Bridge, error) {
	out, err := tmux.Run("list-sessions", "-F", "#{session_name}\t#{@ptybridge_pane}\t#{session_attached}\t#{@ptybridge_command}")
	if err != nil {
		if tmux.IsMissingSession(err) {
			return nil, nil
		}
		return nil, err
	}
	panes, err := tmux.Run("list-panes", "-a", "-F", "#{pane_id}\t#{pane_pid}")
	if err != nil {
		return nil, err
	}
	pids := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(panes), "\n") {
		if id, pid, ok := strings.Cut(l, "\t"); ok {
			pids[id], _ = strconv.Atoi(pid)
		}
	}
	var list []Bridge
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(l, "\t")
		if len(f) < 4 || f[1] == "" {
			continue
		}
		attached, _ := strconv.Atoi(f[2])
		br := Bridge{Name: f[0], Attached: attached, Command: f[3]}
		describe(&br, bridge.Bridge{Name: f[0], RuntimeDir: rundir.Path(), Exe: exe}, f[1], pids[f[1]])
		list = append(list, br)
	}
	return list, nil
}

func describe(br *Bridge, b bridge.Bridge, paneID string, panePID int) {
	br.State = "busy"
	if panePID == 0 {
		br.Busy = "its shared pane " + paneID + " is gone"
		return
	}
	t, err := pane.LocateNow(panePID)
	if err == nil && t.Far {
		br.Far, br.Via = true, t.Name
		if rec := pane.FarRecordFor(b, t.PID); rec != nil {
			br.User, br.Host, br.Shell = rec.User, rec.Host, string(rec.Kind)
		}
	} else if err == nil {
		br.User, br.Shell = rundir.UserName(), t.Name
		br.Host, _ = os.Hostname()
	}
	if err != nil {
		br.Busy = failure.From(err).Msg
		return
	}
	rc, err := relay.Dial(b.SocketPath())
	if err != nil {
		br.Busy = "its relay does not answer (the next ptysend call repairs it)"
		return
	}
	defer rc.Close()
	holder := ""
	if err := rc.WaitTurn(time.Now().Add(turnPeek), func(q relay.Queued) { holder = q.Call }); err != nil {
		br.Busy = "a ptysend call is running in it"
		if holder != "" {
			br.Busy += ": " + holder
		}
		return
	}
	shellPID := t.PID
	if t.Far {
		shellPID = -1
		if rec := pane.FarRecordFor(b, t.PID); rec != nil && rec.Hooked {
			shellPID = rec.PID
		}
	}
	// A call that just ended leaves its shell drawing the prompt.
	tr := markers.TrackerFrom(rc.Shell)
	buf := make([]byte, 4096)
	deadline := time.Now().Add(turnPeek)
	for s := tr.Snapshot(); s.PID == shellPID && s.State != markers.StatePrompt; s = tr.Snapshot() {
		rc.SetReadDeadline(deadline)
		n, err := rc.Read(buf)
		tr.Write(buf[:n])
		if err != nil {
			break
		}
	}
	switch s := tr.Snapshot(); {
	case s.PID == shellPID && s.State == markers.StateRunning:
		br.Busy = "its shell runs a command of the user's"
	case s.PID == shellPID && s.State == markers.StateTyped:
		br.Busy = "the user has typed part of a line"
	default:
		br.State = "free"
	}
}

// PrintList writes the bridges, one line each, or as JSON objects.
func PrintList(w io.Writer, list []Bridge, asJSON bool) error {
	if asJSON {
		if list == nil {
			list = []Bridge{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "no bridge is running: ask the user to start one with ptybridge")
		return nil
	}
	for _, br := range list {
		where := "?"
		if br.User != "" {
			where = br.User + "@" + br.Host
		}
		shell := br.Shell
		if shell == "" {
			shell = "shell not known yet"
		}
		if br.Far {
			shell += " via " + br.Via
		} else {
			shell += " (local)"
		}
		state := br.State
		if br.Busy != "" {
			state += ": " + br.Busy
		}
		terms := fmt.Sprintf("%d terminal", br.Attached)
		if br.Attached != 1 {
			terms += "s"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", br.Name, where, shell, state, terms)
	}
	return nil
}
