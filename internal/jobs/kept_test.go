package jobs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/relay"
)

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
	out, errs := relay.NewBuffer(100, 30), relay.NewBuffer(100, 30)
	out.Write([]byte("first\n"))
	out.Write(bytes.Repeat([]byte("x"), 200))
	out.Write([]byte("last\n"))
	errs.Write([]byte("oops\n"))
	k := &relay.Kept{Info: relay.Info{Name: "web", Status: &status, Ended: &ended, StoppedBy: "Ctrl-C (SIGINT) stopped it",
		OutputBytes: out.Total(), StderrBytes: errs.Total()}, Session: "$1\t1700000000", Serial: 7, Out: out, Err: errs}
	path := keptPath(b, "web")
	if err := k.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := relay.ReadKept(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if got.Info.Name != "web" || *got.Info.Status != 130 || !got.Info.Ended.Equal(ended) || got.Session != k.Session || got.Serial != 7 {
		t.Fatalf("the header: %+v", got)
	}
	for stream, want := range map[string]*relay.Buffer{"out": out, "err": errs} {
		for _, since := range []int64{0, 3, 40, want.Total() - 2} {
			segs, total, ended, _ := got.ReadOutput(stream, since)
			if !sameSegments(segs, want.Read(since)) || total != want.Total() || !ended {
				t.Errorf("%s from %d: %s (total %d)", stream, since, segmentsText(segs), total)
			}
		}
	}
	if header, err := relay.ReadKept(path, false); err != nil || header.Out != nil || header.Info.OutputBytes != 211 {
		t.Fatalf("the header alone: %+v, %v", header, err)
	}
	if left, _ := filepath.Glob(filepath.Join(b.RuntimeDir, "*.tmp")); len(left) != 0 {
		t.Fatalf("left behind: %q", left)
	}
}

// keepJob writes a kept job stopped after serial starts, with size bytes of output.
func keepJob(t *testing.T, b bridge.Bridge, name string, serial int64, size int) {
	t.Helper()
	out := relay.NewBuffer(relay.OutputBound, relay.OutputHead)
	out.Write(make([]byte, size))
	status, ended := 0, time.Now()
	k := &relay.Kept{Info: relay.Info{Name: name, Status: &status, Ended: &ended, OutputBytes: out.Total()}, Serial: serial,
		Out: out, Err: relay.NewBuffer(relay.StderrBound, relay.StderrHead)}
	if err := k.WriteFile(keptPath(b, name)); err != nil {
		t.Fatal(err)
	}
}

// A stopped job's output goes once more than keptJobs jobs have started since it was stopped.
func TestKeptJobsGoAHundredStartsLater(t *testing.T) {
	b := testBridge(t)
	keepJob(t, b, "old", startsSoFar(b), 10)
	countStart(b)
	keepJob(t, b, "newer", startsSoFar(b), 10)
	for range keptJobs - 1 {
		countStart(b)
	}
	pruneKept(b, startsSoFar(b))
	if got := jobNames(b, keptSuffix); !slices.Equal(got, []string{"newer", "old"}) {
		t.Fatalf("%d starts after old was stopped: %q", keptJobs, got)
	}
	pruneKept(b, countStart(b))
	if got := jobNames(b, keptSuffix); !slices.Equal(got, []string{"newer"}) {
		t.Fatalf("%d starts after old was stopped: %q", keptJobs+1, got)
	}
}

// The kept outputs together take at most keptBytes: the oldest go first.
func TestKeptJobsTakeBoundedSpace(t *testing.T) {
	b := testBridge(t)
	const each = 9 << 20
	for i := range 8 { // 72 MiB: over the bound
		keepJob(t, b, fmt.Sprintf("job%d", i), int64(i), each)
	}
	pruneKept(b, 8)
	want := []string{"job1", "job2", "job3", "job4", "job5", "job6", "job7"} // 63 MiB and their headers
	if got := jobNames(b, keptSuffix); !slices.Equal(got, want) {
		t.Fatalf("kept %q, want %q", got, want)
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
