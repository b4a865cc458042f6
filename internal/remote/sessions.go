package remote

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/look"
	"github.com/ptybridge/ptybridge/internal/rundir"
)

// Sessions describes the remote bridges recorded in dir as their hosts' ptysend --sessions does,
// marked remote; one whose connection is down as "disconnected".
func Sessions(dir string) []look.Session {
	records := List(dir)
	if len(records) == 0 || rundir.Ensure(dir) != nil { // a record names the program to run: trusted in a private directory only
		return nil
	}
	list := make([]look.Session, len(records))
	for i, r := range records {
		list[i], _ = r.Describe()
	}
	return list
}

// Disconnected is the state of a remote bridge whose connection is down.
const Disconnected = "disconnected"

// Describe is the remote bridge as its host's ptysend --sessions says; found is false when the
// host does not list it (the session ended) or cannot be asked (the connection is down).
func (r *Record) Describe() (s look.Session, found bool) {
	s = look.Session{Name: r.Name, Remote: r.Dest, Host: r.Host(), State: Disconnected}
	if user, _, ok := strings.Cut(r.Dest, "@"); ok {
		s.User = user
	}
	if !r.MasterAlive() {
		s.Busy = "no connection to " + r.Dest + ": ask the user to run ptybridge --host " + r.Dest
		return s, false
	}
	cmd := r.Command(OverMaster(true), r.Words("--session", r.Name, "--sessions", "--json")...)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		s.State, s.Busy = "busy", "ssh did not start: "+err.Error()
		return s, false
	}
	timeout := time.AfterFunc(10*time.Second, func() { cmd.Process.Kill() })
	cmd.Wait()
	timeout.Stop()
	var host []look.Session
	json.Unmarshal(out.Bytes(), &host)
	for _, h := range host {
		if h.Name == r.Name {
			h.Remote = r.Dest
			return h, true
		}
	}
	s.State, s.Busy = "busy", "the host's session "+r.Name+" does not answer"
	return s, false
}
