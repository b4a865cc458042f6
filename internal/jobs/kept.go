package jobs

import (
	"errors"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// A stopped job's output outlives its window, whose relay held it: the relay answers --job-stop
// with it once the job ended (stop.go), which keeps it, with the job's status, in a private file
// of the runtime directory, <session>.job-NAME.kept (relay.Kept), which --job-output, --job-wait
// and --jobs read as they read a relay. It goes when a job of that name starts, when more than keptJobs jobs have
// started since it was stopped, when the kept outputs together pass keptBytes (the oldest go
// first), and when a later bridge session of the same name finds it. The runtime directory may
// be a tmpfs, in memory: keptBytes bounds what stopped jobs take there.
const (
	keptJobs  = 100
	keptBytes = 64 << 20 // a job keeps at most relay.OutputBound+relay.StderrBound, 10 MiB
)

const keptSuffix = ".kept"

func keptPath(b bridge.Bridge, name string) string { return b.File(socketPrefix + name + keptSuffix) }

// startsPath counts the jobs ever started in the bridge: a kept job's age is counted in them.
func startsPath(b bridge.Bridge) string { return b.File(".job-starts") }

// replay is what a relay's follow sends, from what was kept: the output from outSince, the
// stderr from errSince (-1: from now on, so none), then the job's end.
func replay(k *relay.Kept, outSince, errSince int64) <-chan relay.Event {
	evs := make(chan relay.Event, 5) // a stream is read in at most two segments
	add := func(stream string, since int64) {
		segs, _, _, _ := k.ReadOutput(stream, since)
		for _, seg := range segs {
			evs <- relay.Event{Stream: stream, Offset: seg.Offset, Data: seg.Data}
		}
	}
	add("out", outSince)
	if errSince >= 0 {
		add("err", errSince)
	}
	evs <- relay.Event{Stream: "ended", Status: exitStatus(k.Info)}
	return evs
}

// sessionIdentity tells the bridge session apart from an earlier one of the same name: its
// tmux server's pid, its id there and its creation time (seconds). "" when it is gone.
func sessionIdentity(b bridge.Bridge) string {
	// display-message answers for another session when ours does not exist (tmux 3.3a).
	out, err := tmux.Run("display-message", "-p", "-t", tmux.SessionTarget(b.Name), "#{session_name}\t#{pid}\t#{session_id}\t#{session_created}")
	name, identity, ok := strings.Cut(strings.TrimSpace(out), "\t")
	if err != nil || !ok || name != b.Name {
		return ""
	}
	return identity
}

// keptJobsOf reads the headers of the bridge's kept jobs of this session, by name.
func keptJobsOf(b bridge.Bridge) map[string]*relay.Kept {
	names := jobNames(b, keptSuffix)
	if len(names) == 0 {
		return nil
	}
	session := sessionIdentity(b)
	jobs := map[string]*relay.Kept{}
	for _, name := range names {
		if k := ofSession(b, name, session, false); k != nil {
			jobs[name] = k
		}
	}
	return jobs
}

// findKept is the kept job name (valid: connect checked it) of this bridge session, with its output;
// nil when there is none.
func findKept(b bridge.Bridge, name string) *relay.Kept {
	if _, err := os.Stat(keptPath(b, name)); err != nil {
		return nil // no tmux call on the way to "no such job"
	}
	return ofSession(b, name, sessionIdentity(b), true)
}

// ofSession reads the kept job name if it is of the session; one of another session, or that
// cannot be read, is removed. A session that tmux did not tell ("") keeps its files.
func ofSession(b bridge.Bridge, name, session string, withOutput bool) *relay.Kept {
	k, err := relay.ReadKept(keptPath(b, name), withOutput)
	switch {
	case errors.Is(err, os.ErrNotExist) || session == "":
		return nil
	case err != nil || k.Session != session:
		os.Remove(keptPath(b, name))
		return nil
	}
	return k
}

// countStart counts one more job started in the bridge and returns the count. Call it with
// the start lock held.
func countStart(b bridge.Bridge) int64 {
	n := startsSoFar(b) + 1
	os.WriteFile(startsPath(b), []byte(strconv.FormatInt(n, 10)), 0o600)
	return n
}

func startsSoFar(b bridge.Bridge) int64 {
	data, _ := os.ReadFile(startsPath(b))
	n, _ := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	return n
}

// pruneKept removes the kept jobs more than keptJobs starts old at count starts, then the
// oldest while they take more than keptBytes together. Call it with the start lock held.
func pruneKept(b bridge.Bridge, starts int64) {
	type file struct {
		path         string
		serial, size int64
	}
	var files []file
	for _, name := range jobNames(b, keptSuffix) {
		path := keptPath(b, name)
		k, err := relay.ReadKept(path, false)
		fi, serr := os.Stat(path)
		if err != nil || serr != nil || starts-k.Serial > keptJobs {
			os.Remove(path)
			continue
		}
		files = append(files, file{path, k.Serial, fi.Size()})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].serial > files[j].serial }) // newest first
	var total int64
	for _, f := range files {
		if total += f.size; total > keptBytes {
			os.Remove(f.path)
		}
	}
}
