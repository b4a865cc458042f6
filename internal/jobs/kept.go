package jobs

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// A stopped job's output outlives its window, whose relay held it: --job-stop follows it to the
// job's end (stop.go) and keeps it, with the job's status, in a private file of the runtime
// directory, <session>.job-NAME.kept, which --job-output, --job-wait and --jobs read as they
// read a relay. It goes when a job of that name starts, when more than keptJobs jobs have
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

// keptJob is a stopped job. Its file is the header, one line of JSON, then the bytes of Out's
// segments and Err's, in order.
type keptJob struct {
	Info    relay.Info `json:"info"`
	Session string     `json:"session"` // the bridge session it ran in (sessionIdentity)
	Serial  int64      `json:"serial"`  // the jobs started in the bridge when it was stopped
	Out     keptStream `json:"out"`
	Err     keptStream `json:"err"`
}

// keptStream is what a relay.Buffer kept of one stream: its segments around what was dropped.
type keptStream struct {
	Total int64           `json:"total"`
	Spans []keptSpan      `json:"segments"`
	Segs  []relay.Segment `json:"-"`
}

type keptSpan struct {
	Offset int64 `json:"offset"`
	Length int   `json:"length"`
}

// ReadOutput answers as a relay does (relay.JobClient.ReadOutput) for the kept job.
func (k *keptJob) ReadOutput(stream string, since int64) ([]relay.Segment, int64, bool, error) {
	s := &k.Out
	if stream == "err" {
		s = &k.Err
	}
	return s.read(since), s.Total, true, nil
}

func (k *keptJob) Close() error { return nil }

// replay is what a relay's follow sends, from what was kept: the output from outSince, the
// stderr from errSince (-1: from now on, so none), then the job's end.
func (k *keptJob) replay(outSince, errSince int64) <-chan relay.Event {
	var evs []relay.Event
	add := func(stream string, s *keptStream, since int64) {
		for _, seg := range s.read(since) {
			if len(seg.Data) > 0 {
				evs = append(evs, relay.Event{Stream: stream, Offset: seg.Offset, Data: seg.Data})
			}
		}
	}
	add("out", &k.Out, outSince)
	if errSince >= 0 {
		add("err", &k.Err, errSince)
	}
	status := -1
	if k.Info.Status != nil {
		status = *k.Info.Status
	}
	evs = append(evs, relay.Event{Stream: "ended", Status: status})
	ch := make(chan relay.Event, len(evs))
	for _, ev := range evs {
		ch <- ev
	}
	return ch
}

// read returns the kept bytes from offset since on, as relay.Buffer.Read does: at least one
// segment, the first of which may start after since when the bytes there were dropped.
func (s *keptStream) read(since int64) []relay.Segment {
	since = max(0, min(since, s.Total))
	var segs []relay.Segment
	for _, seg := range s.Segs {
		end := seg.Offset + int64(len(seg.Data))
		if end <= since {
			continue
		}
		skip := max(0, since-seg.Offset)
		segs = append(segs, relay.Segment{Offset: seg.Offset + skip, Data: seg.Data[skip:]})
	}
	if len(segs) == 0 {
		segs = []relay.Segment{{Offset: since}}
	}
	return segs
}

// add appends a piece of the stream at offset, and keeps at most bound bytes: the first head
// and the last ones, as the relay does.
func (s *keptStream) add(offset int64, data []byte, bound, head int) {
	if len(data) == 0 {
		return
	}
	if n := len(s.Segs); n > 0 && s.Segs[n-1].Offset+int64(len(s.Segs[n-1].Data)) == offset {
		s.Segs[n-1].Data = append(s.Segs[n-1].Data, data...)
	} else {
		s.Segs = append(s.Segs, relay.Segment{Offset: offset, Data: data})
	}
	s.Total = max(s.Total, offset+int64(len(data)))
	s.dropMiddle(bound, head)
}

// dropMiddle drops the kept bytes past the first head ones, as many as are over bound.
func (s *keptStream) dropMiddle(bound, head int) {
	size := 0
	for _, seg := range s.Segs {
		size += len(seg.Data)
	}
	if size <= bound {
		return
	}
	dropFrom, dropTo := head, head+size-bound // in kept bytes, counted over the segments
	var kept []relay.Segment
	pos := 0
	for _, seg := range s.Segs {
		n := len(seg.Data)
		from, to := min(max(dropFrom-pos, 0), n), min(max(dropTo-pos, 0), n)
		if from > 0 {
			kept = append(kept, relay.Segment{Offset: seg.Offset, Data: seg.Data[:from]})
		}
		if to < n {
			kept = append(kept, relay.Segment{Offset: seg.Offset + int64(to), Data: seg.Data[to:]})
		}
		pos += n
	}
	s.Segs = kept
}

// write writes the kept job's file at path, whole or not at all.
func (k *keptJob) write(path string) error {
	for _, s := range []*keptStream{&k.Out, &k.Err} {
		s.Spans = s.Spans[:0]
		for _, seg := range s.Segs {
			s.Spans = append(s.Spans, keptSpan{seg.Offset, len(seg.Data)})
		}
	}
	header, err := json.Marshal(k)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	w.Write(append(header, '\n'))
	for _, s := range []*keptStream{&k.Out, &k.Err} {
		for _, seg := range s.Segs {
			w.Write(seg.Data)
		}
	}
	if err = w.Flush(); err == nil {
		err = f.Close()
	} else {
		f.Close()
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// readKept reads the kept job's file at path: its header alone, or its output too.
func readKept(path string, withOutput bool) (*keptJob, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	k := &keptJob{}
	if err := json.Unmarshal(line, k); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if !withOutput {
		return k, nil
	}
	for _, s := range []*keptStream{&k.Out, &k.Err} {
		for _, span := range s.Spans {
			data := make([]byte, span.Length)
			if _, err := io.ReadFull(r, data); err != nil {
				return nil, fmt.Errorf("reading %s: %w", path, err)
			}
			s.Segs = append(s.Segs, relay.Segment{Offset: span.Offset, Data: data})
		}
	}
	return k, nil
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

// keptNames lists the names of the bridge's kept jobs, sorted, whatever their session.
func keptNames(b bridge.Bridge) []string { return namesWith(b, keptSuffix) }

// keptJobsOf reads the headers of the bridge's kept jobs of this session, by name.
func keptJobsOf(b bridge.Bridge) map[string]*keptJob {
	names := keptNames(b)
	if len(names) == 0 {
		return nil
	}
	session := sessionIdentity(b)
	jobs := map[string]*keptJob{}
	for _, name := range names {
		if k, ok := ofSession(b, name, session, false); ok {
			jobs[name] = k
		}
	}
	return jobs
}

// findKept is the kept job name of this bridge session, with its output; nil when there is none.
func findKept(b bridge.Bridge, name string) *keptJob {
	if ValidName(name) != nil {
		return nil
	}
	if _, err := os.Stat(keptPath(b, name)); err != nil {
		return nil // no tmux call on the way to "no such job"
	}
	k, _ := ofSession(b, name, sessionIdentity(b), true)
	return k
}

// ofSession reads the kept job name if it is of the session; one of another session, or that
// cannot be read, is removed. A session that tmux did not tell ("") keeps its files.
func ofSession(b bridge.Bridge, name, session string, withOutput bool) (*keptJob, bool) {
	k, err := readKept(keptPath(b, name), withOutput)
	switch {
	case errors.Is(err, os.ErrNotExist) || session == "":
		return nil, false
	case err != nil || k.Session != session:
		os.Remove(keptPath(b, name))
		return nil, false
	}
	return k, true
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
		path   string
		serial int64
		size   int64
	}
	var files []file
	for _, name := range keptNames(b) {
		path := keptPath(b, name)
		k, err := readKept(path, false)
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
