package relay

import (
	"bufio"
	"errors"
	"fmt"
	"os"
)

// Kept is a stopped job as its relay held it last: its info, output and stderr. The relay
// answers "stop" with it (jobserve.go), and --job-stop keeps it in a file (internal/jobs) in
// the same messages, after a header:
//
//	kept SESSION SERIAL, job INFO..., data out OFFSET LENGTH BYTES..., data err ..., stopped
type Kept struct {
	Session  string // the bridge session it ran in
	Serial   int64  // the jobs started in the bridge when it was stopped
	Info     Info
	Out, Err *Buffer
}

// appendKept appends the job's info, then all its output and stderr keep.
func appendKept(b []byte, info Info, out, err *Buffer) []byte {
	return appendRead(appendRead(appendInfo(b, info), "out", out, 0), "err", err, 0)
}

// WriteFile writes the kept job's file at path, whole or not at all.
func (k *Kept) WriteFile(path string) error {
	b := appendMessage(nil, "kept", k.Session, k.Serial)
	tmp := path + ".tmp"
	err := os.WriteFile(tmp, appendMessage(appendKept(b, k.Info, k.Out, k.Err), "stopped"), 0o600)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// ReadKept reads the kept job's file at path: its header alone, or its output too.
func ReadKept(path string, withOutput bool) (*Kept, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, maxLine)
	next := func() (message, error) { return readMessage(r) }
	m, err := next()
	var k *Kept
	if err == nil && (m.verb() != "kept" || !m.fieldCount(2)) {
		err = fmt.Errorf("not a kept job: %q", m.words)
	} else if err == nil {
		if k, err = readKept(next, withOutput); err == nil {
			k.Session, k.Serial = m.text(1), m.int64(2)
			err = m.err
		}
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return k, nil
}

// readKept reads the info of a stopped job, and with its output the data messages up to "stopped".
func readKept(next func() (message, error), withOutput bool) (*Kept, error) {
	m, err := next()
	if err != nil {
		return nil, err
	}
	k := &Kept{Info: parseInfo(&m)}
	if m.verb() != "job" || m.err != nil || k.Info.Running {
		return nil, fmt.Errorf("not a stopped job: %q", m.words)
	}
	if !withOutput {
		return k, nil
	}
	segs := map[string][]Segment{}
	for m, err = next(); err == nil && m.verb() == "data"; m, err = next() {
		segs[m.field(1)] = append(segs[m.field(1)], Segment{m.int64(2), m.data})
	}
	if err == nil && m.verb() != "stopped" {
		err = fmt.Errorf("unexpected message: %q", m.words)
	}
	if err != nil {
		return nil, err
	}
	k.Out, k.Err = restore(segs["out"], k.Info.OutputBytes), restore(segs["err"], k.Info.StderrBytes)
	if k.Out == nil || k.Err == nil {
		return nil, errors.New("a stopped job's output is malformed")
	}
	return k, nil
}

// restore is a Buffer that holds again the segments of Read(0) of one of total bytes (with data):
// none, one, or two around the dropped middle; nil when segs are no such thing.
func restore(segs []Segment, total int64) *Buffer {
	if len(segs) > 2 || len(segs) > 0 && segs[0].Offset != 0 {
		return nil
	}
	b := &Buffer{total: total}
	if len(segs) > 0 {
		b.head = segs[0].Data
	}
	end := int64(len(b.head))
	if len(segs) == 2 {
		b.ring = segs[1].Data
		if segs[1].Offset < end || len(b.ring) == 0 {
			return nil
		}
		end = segs[1].Offset + int64(len(b.ring))
	}
	if end != total {
		return nil
	}
	return b
}

// ReadOutput answers as JobClient.ReadOutput does, from what was kept.
func (k *Kept) ReadOutput(stream string, since int64) ([]Segment, int64, bool, error) {
	buf := k.Out
	if stream == "err" {
		buf = k.Err
	}
	return buf.Read(since), buf.Total(), true, nil
}
