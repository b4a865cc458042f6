package session

import (
	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/repl"
	"github.com/ptybridge/ptybridge/internal/rundir"
)

// newCallID is the id of a new call, which names its per-call files. It
// is claimed before any of them exist, so that no other call takes them
// for leftovers; and the files of calls that are gone (a ptysend killed
// with SIGKILL could not remove its own) are removed now. A running
// REPL's script is kept. See rundir/calls.go.
func newCallID(b bridge.Bridge) (markers.ID, error) {
	id, err := markers.NewID()
	if err != nil {
		return "", err
	}
	// Without the lock (a file system without OFD locks) nobody can tell
	// a leftover either, and nothing is removed: the call goes on.
	rundir.Claim(b.RuntimeDir, string(id))
	rundir.SweepLeftovers(b.RuntimeDir, repl.ScriptsInUse(b.RuntimeDir))
	return id, nil
}
