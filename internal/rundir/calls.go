package rundir

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ptybridge/ptybridge/internal/platform"
)

// Per-call files are named after the call's id (16 hex digits): <id>.sh,
// <id>.err, the stdin fifo <id>.in, a REPL's <id>.repl.sh... A call
// removes its own when it ends, but a ptysend killed with SIGKILL cannot,
// so each call also removes those of calls that are gone.
//
// Several bridges may share the runtime directory, each with a call
// running, so each call claims its id before it creates any file: it
// holds a lock on one byte of the runtime directory (the id's number),
// which the kernel drops when the process ends, however it ends. A file
// whose id nobody holds belongs to a call that is gone. The lock takes no
// file, and two system calls.

// claimed holds the locks that claim our ids, open until the process
// exits.
var claimed *platform.ByteLocks

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
// none that keep(name) wants kept (a running REPL's script). The bridge's
// own files (named after the session, not an id) are never touched.
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

// callID is the id of a per-call file's name. The bridge's own files are
// named after the session, which may look like an id too: their
// extensions tell them apart.
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

// idByte is the byte of the directory whose lock stands for id.
func idByte(id string) int64 {
	n, _ := strconv.ParseUint(id, 16, 64)
	return int64(n >> 1)
}
