package jobs

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// What a stopped job keeps of a stream is what its relay kept: fed the same bytes in pieces, a
// keptStream and a relay.Buffer read the same from any offset.
func TestAKeptStreamKeepsWhatTheRelayKept(t *testing.T) {
	const bound, head = 100, 30
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, 99, 100, 101, 130, 250, 1000} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte('a' + i%26)
		}
		buf := relay.NewBuffer(bound, head)
		var kept keptStream
		for pos := 0; pos < size; {
			n := min(size-pos, 1+rng.IntN(60))
			buf.Write(data[pos : pos+n])
			kept.add(int64(pos), slices.Clone(data[pos:pos+n]), bound, head)
			pos += n
		}
		for _, since := range []int64{0, 1, 29, 30, 31, 99, 100, int64(size) - 1, int64(size), int64(size) + 5} {
			want, got := buf.Read(since), kept.read(since)
			if !sameSegments(want, got) {
				t.Errorf("size %d, since %d: the relay kept %s, the stopped job %s", size, since, segmentsText(want), segmentsText(got))
			}
		}
	}
}

// A piece that comes after a gap (the relay dropped bytes before the follow read them) starts
// a segment of its own.
func TestAKeptStreamKeepsGapsAsTheyCame(t *testing.T) {
	var kept keptStream
	kept.add(0, []byte("head\n"), 100, 30)
	kept.add(50, []byte("tail\n"), 100, 30)
	kept.add(55, []byte("more\n"), 100, 30)
	got := kept.read(2)
	want := []relay.Segment{{Offset: 2, Data: []byte("ad\n")}, {Offset: 50, Data: []byte("tail\nmore\n")}}
	if !sameSegments(want, got) || kept.Total != 60 {
		t.Fatalf("got %s (total %d), want %s", segmentsText(got), kept.Total, segmentsText(want))
	}
	if got := kept.read(20); len(got) != 1 || got[0].Offset != 50 {
		t.Fatalf("from inside the gap: %s", segmentsText(got))
	}
}

func sameSegments(a, b []relay.Segment) bool {
	return slices.EqualFunc(a, b, func(x, y relay.Segment) bool { return x.Offset == y.Offset && bytes.Equal(x.Data, y.Data) })
}

func segmentsText(segs []relay.Segment) string {
	s := ""
	for _, seg := range segs {
		s += fmt.Sprintf("[%d %q]", seg.Offset, seg.Data)
	}
	return s
}

func testBridge(t *testing.T) bridge.Bridge {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "jk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return bridge.Bridge{Name: "b", RuntimeDir: dir}
}

func TestAKeptJobReadsBackAsWritten(t *testing.T) {
	b := testBridge(t)
	status, ended := 130, time.Now().Round(0)
	k := &keptJob{Info: relay.Info{Name: "web", Status: &status, Ended: &ended, StoppedBy: "Ctrl-C (SIGINT) stopped it"},
		Session: "$1\t1700000000", Serial: 7}
	k.Out.add(0, []byte("first\n"), 100, 30)
	k.Out.add(80, []byte("last\n"), 100, 30)
	k.Err.add(0, []byte("oops\n"), 100, 30)
	path := keptPath(b, "web")
	if err := k.write(path); err != nil {
		t.Fatal(err)
	}
	got, err := readKept(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if got.Info.Name != "web" || *got.Info.Status != 130 || !got.Info.Ended.Equal(ended) || got.Session != k.Session || got.Serial != 7 {
		t.Fatalf("the header: %+v", got)
	}
	for stream, want := range map[string]*keptStream{"out": &k.Out, "err": &k.Err} {
		segs, total, ended, _ := got.ReadOutput(stream, 0)
		if !sameSegments(segs, want.read(0)) || total != want.Total || !ended {
			t.Errorf("%s: %s (total %d)", stream, segmentsText(segs), total)
		}
	}
	if header, err := readKept(path, false); err != nil || header.Out.Segs != nil || header.Out.Total != 85 {
		t.Fatalf("the header alone: %+v, %v", header, err)
	}
	if left, _ := filepath.Glob(filepath.Join(b.RuntimeDir, "*.tmp")); len(left) != 0 {
		t.Fatalf("left behind: %q", left)
	}
}

// writeKept writes a kept job stopped after serial starts, with size bytes of output.
func writeKept(t *testing.T, b bridge.Bridge, name string, serial int64, size int) {
	t.Helper()
	k := &keptJob{Info: relay.Info{Name: name}, Serial: serial}
	k.Out.add(0, make([]byte, size), relay.OutputBound, relay.OutputHead)
	if err := k.write(keptPath(b, name)); err != nil {
		t.Fatal(err)
	}
}

// A stopped job's output goes once more than keptJobs jobs have started since it was stopped.
func TestKeptJobsGoAHundredStartsLater(t *testing.T) {
	b := testBridge(t)
	writeKept(t, b, "old", startsSoFar(b), 10)
	countStart(b)
	writeKept(t, b, "newer", startsSoFar(b), 10)
	for range keptJobs - 1 {
		countStart(b)
	}
	pruneKept(b, startsSoFar(b))
	if got := keptNames(b); !slices.Equal(got, []string{"newer", "old"}) {
		t.Fatalf("%d starts after old was stopped: %q", keptJobs, got)
	}
	pruneKept(b, countStart(b))
	if got := keptNames(b); !slices.Equal(got, []string{"newer"}) {
		t.Fatalf("%d starts after old was stopped: %q", keptJobs+1, got)
	}
}

// The kept outputs together take at most keptBytes: the oldest go first.
func TestKeptJobsTakeBoundedSpace(t *testing.T) {
	b := testBridge(t)
	const each = 9 << 20
	for i := range 8 { // 72 MiB: over the bound
		writeKept(t, b, fmt.Sprintf("job%d", i), int64(i), each)
	}
	pruneKept(b, 8)
	want := []string{"job1", "job2", "job3", "job4", "job5", "job6", "job7"} // 63 MiB and their headers
	if got := keptNames(b); !slices.Equal(got, want) {
		t.Fatalf("kept %q, want %q", got, want)
	}
}
