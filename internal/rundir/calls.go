package rundir

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ptybridge/ptybridge/internal/platform"
)

// Per-call files are named after the call's id (16 hex digits): <id>.sh,
// <id>.in... A ptysend killed with SIGKILL cannot remove its own, so each
// call removes those of calls that are gone, even other bridges': those
// whose id no process claims with a lock on one byte of the directory,
// which the kernel drops when the process ends.

var claimed *platform.ByteLocks // open until the process exits

// Claim marks id as a live call's, for as long as this process runs.
func Claim(dir, id string) error {
	if claimed == nil {
		locks, err := platform.OpenByteLocks(dir)
		if err != nil {
			return err
		}
		claimed = locks
	}
	return claimed.Share(idByte(id))
}

// SweepLeftovers removes the per-call files of calls that are gone, but
// none that keep(name) wants kept (a running REPL's script).
func SweepLeftovers(dir string, keep func(name string) bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	var locks *platform.ByteLocks // another open than claimed's, to see our own claims
	live := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		id, ok := callID(name)
		if !ok {
			continue
		}
		if locks == nil {
			if locks, err = platform.OpenByteLocks(dir); err != nil {
				return
			}
			defer locks.Close()
		}
		held, seen := live[id]
		if !seen {
			held = locks.Held(idByte(id)) // when in doubt, it is not a leftover
			live[id] = held
		}
		if !held && !keep(name) {
			os.Remove(filepath.Join(dir, name))
		}
	}
}

// callID is the id of a per-call file's name. The bridge's own files,
// named after the session, which may look like an id, have other
// extensions.
func callID(name string) (string, bool) {
	id, ext, ok := strings.Cut(name, ".")
	if !ok || len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" {
		return "", false
	}
	switch ext {
	case "sock", "query.sock", "mode", "hooked", "repl.json", "repl.json.tmp", "pane", "pane.tmp":
		return "", false
	}
	if strings.HasPrefix(ext, "job-") || strings.HasPrefix(ext, "spare") { // a job's keeper, a spare window's files (internal/jobs)
		return "", false
	}
	return id, true
}

func idByte(id string) int64 {
	n, _ := strconv.ParseUint(id, 16, 64)
	return int64(n >> 1)
}
