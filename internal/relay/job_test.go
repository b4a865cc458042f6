package relay

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/markers"
)

const testID = markers.ID("0123456789abcdef")

func jobWindow(t *testing.T) *testRelay {
	return startRelay(t, Config{PaneID: "%9", Job: &JobConfig{Name: "web", ID: testID, Command: "serve"}})
}

func (r *testRelay) dialJob() *JobClient {
	r.t.Helper()
	c, err := DialJob(r.sock)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { c.Close() })
	return c
}

func next(t *testing.T, c *JobClient) Event {
	t.Helper()
	ev, err := c.Next()
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func TestAJobsRelayFollowsReadsAndEnds(t *testing.T) {
	r := jobWindow(t)
	follower := r.dialJob()
	if err := follower.Follow(0, 0); err != nil {
		t.Fatal(err)
	}
	// Before START: the window's own bytes, not the job's.
	r.write("noise" + markers.Start(testID) + "hello\r\n")
	if ev := next(t, follower); ev.Stream != "out" || ev.Offset != 0 || string(ev.Data) != "hello\n" {
		t.Fatalf("first event: %+v", ev)
	}
	r.write(string(markers.AppendStderrFrame(nil, testID, []byte("oops\r\n"))) + "part")
	got := map[string]string{}
	for got["err"] == "" || got["out"] != "part" {
		ev := next(t, follower)
		got[ev.Stream] += string(ev.Data)
	}
	if got["err"] != "oops\n" {
		t.Fatalf("stderr: %q", got["err"])
	}
	c := r.dialJob()
	info, err := c.Info()
	if err != nil {
		t.Fatal(err)
	}
	if !info.Running || info.Status != nil || info.OutputBytes != 10 || info.StderrBytes != 5 || info.LastLine != "part" ||
		info.Name != "web" || info.Command != "serve" || info.Pane != "%9" || info.Waiters != 1 {
		t.Fatalf("info while running: %+v", info)
	}
	r.write("ial\r\n" + markers.End(testID, 3) + "after the end")
	for ev := next(t, follower); ev.Stream != "ended"; ev = next(t, follower) {
		if ev.Stream != "out" || string(ev.Data) != "ial\n" {
			t.Fatalf("event before the end: %+v", ev)
		}
	}
	info, err = c.Info()
	if err != nil || info.Running || info.Status == nil || *info.Status != 3 || info.LastLine != "partial" || info.Ended == nil {
		t.Fatalf("info once ended: %+v, %v", info, err)
	}
	segs, total, ended, err := c.ReadOutput("out", 6)
	if err != nil || !ended || total != 14 || len(segs) != 1 || string(segs[0].Data) != "partial\n" {
		t.Fatalf("read from 6: %+v %d %v %v", segs, total, ended, err)
	}
	segs, total, _, err = c.ReadOutput("err", 0)
	if err != nil || total != 5 || string(segs[0].Data) != "oops\n" {
		t.Fatalf("read stderr: %+v %v", segs, err)
	}
	// A follow of an ended job gets what is left, and the end.
	late := r.dialJob()
	late.Follow(14, 0)
	if ev := next(t, late); ev.Stream != "err" || string(ev.Data) != "oops\n" {
		t.Fatalf("late follow: %+v", ev)
	}
	if ev := next(t, late); ev.Stream != "ended" || ev.Status != 3 {
		t.Fatalf("late follow's end: %+v", ev)
	}
}

func TestAJobsRelayTellsFollowersTheWindowIsGone(t *testing.T) {
	r := jobWindow(t)
	follower := r.dialJob()
	follower.Follow(0, -1)
	r.write(markers.Start(testID) + "x\r\n")
	next(t, follower)
	r.feed.Close()
	if ev := next(t, follower); ev.Stream != "gone" {
		t.Fatalf("want gone, got %+v", ev)
	}
}

func TestAJobsRelayTypesTextAsAPasteWhenTheProgramAskedForIt(t *testing.T) {
	r := jobWindow(t)
	c := r.dialJob()
	r.write(markers.Start(testID))
	if err := c.Send("a $x\nb", true); err != nil {
		t.Fatal(err)
	}
	if got := <-r.keys; got != "a $x\rb\r" {
		t.Fatalf("paste off: typed %q", got)
	}
	r.write("\x1b[?2004h> ")
	c.Info() // the stream above is read once the relay answers after it
	if err := c.Send("a\nb\x1b[201~", false); err != nil {
		t.Fatal(err)
	}
	if got := <-r.keys; got != "\x1b[200~a\rb\x1b[201~" {
		t.Fatalf("paste on: typed %q", got)
	}
}

func TestAJobsRelayRefusesBadRequests(t *testing.T) {
	r := jobWindow(t)
	for _, req := range [][]any{{"read", word("sideways"), 0}, {"read", word("out"), word("x")}, {"frobnicate"}} {
		c := r.dialJob()
		if _, err := c.ask("", req[0].(string), req[1:]...); !IsAnswer(err) {
			t.Fatalf("%v: want an error answer, got %v", req, err)
		}
	}
}

func TestTypedText(t *testing.T) {
	for _, c := range []struct {
		text  string
		paste cleantext.Mode
		enter bool
		want  string
	}{
		{"ls", cleantext.Off, true, "ls\r"},
		{"ls", cleantext.Unknown, false, "ls"},
		{"a\r\nb\nc", cleantext.Off, true, "a\rb\rc\r"},
		{"a\nb", cleantext.On, true, "\x1b[200~a\rb\x1b[201~\r"},
		{"", cleantext.On, true, "\r"},
	} {
		if got := TypedText(c.text, c.paste, c.enter); got != c.want {
			t.Errorf("TypedText(%q, %s, %v) = %q, want %q", c.text, c.paste, c.enter, got, c.want)
		}
	}
}

func TestASpareWindowsRelayBecomesTheJobsWhenActivated(t *testing.T) {
	moved := make(chan *job, 1)
	moveIntoBridge = func(j *job) error { moved <- j; return nil }
	defer func() { moveIntoBridge = (*job).moveWithTmux }()
	r := startRelay(t, Config{PaneID: "%9", Job: &JobConfig{Spare: true}})
	c := r.dialJob()
	r.write("nothing of a job's\r\n")
	if _, err := c.Info(); err != nil {
		t.Fatal(err)
	}
	jobSock, readyPath := filepath.Join(filepath.Dir(r.sock), "job.sock"), filepath.Join(filepath.Dir(r.sock), "ready")
	if err := syscall.Mkfifo(readyPath, 0o600); err != nil {
		t.Fatal(err)
	}
	ready, err := os.OpenFile(readyPath, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ready.Close()
	if pane, err := c.Activate(string(testID), "later", "serve", jobSock, readyPath); err != nil || pane != "%9" {
		t.Fatalf("activation: %q %v", pane, err)
	}
	if _, err := os.Stat(r.sock); !os.IsNotExist(err) {
		t.Fatal("the spare's socket stays")
	}
	if (<-moved).Name != "later" {
		t.Fatal("the window was not moved as the job's")
	}
	r.sock = jobSock // where the relay removes its socket from now on
	r.write(markers.Start(testID) + "hi\r\n")
	if line, err := bufio.NewReader(ready).ReadString('\n'); err != nil || line != "ok\n" {
		t.Fatalf("started: %q %v", line, err)
	}
	byName, err := DialJob(jobSock)
	if err != nil {
		t.Fatal(err)
	}
	defer byName.Close()
	info, err := byName.Info()
	if err != nil || info.Name != "later" || info.OutputBytes != 3 || !info.Running {
		t.Fatalf("the job by its socket: %+v %v", info, err)
	}
	// A second activation is refused.
	if _, err := c.Activate(string(testID), "later", "serve", jobSock, readyPath); err == nil || !strings.Contains(err.Error(), "not a spare") {
		t.Fatalf("activated twice: %v", err)
	}
}
