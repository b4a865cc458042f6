package jobs

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// keysWriter hands each write (what the keeper types into the window) to
// a channel.
type keysWriter chan string

func (k keysWriter) Write(p []byte) (int, error) {
	k <- string(p)
	return len(p), nil
}

// testKeeper runs a keeper on a fake window: the test writes the window's
// stream to feed and reads what the keeper types from keys.
type testKeeper struct {
	t    *testing.T
	sock string
	feed *io.PipeWriter
	keys keysWriter
	done chan error
}

const testID = markers.ID("0123456789abcdef")

func startTestKeeper(t *testing.T) *testKeeper {
	t.Helper()
	return startTestKeeperWith(t, KeeperArgs{Name: "web", ID: testID, Command: "serve"})
}

// startTestKeeperWith runs a keeper with a, in a private directory.
func startTestKeeperWith(t *testing.T, a KeeperArgs) *testKeeper {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "jk") // unix socket paths are short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	paneOut, feed := io.Pipe()
	k := &testKeeper{t: t, sock: filepath.Join(dir, "k.sock"), feed: feed, keys: make(keysWriter, 16), done: make(chan error, 1)}
	a.Socket, a.Pane = k.sock, "%9"
	go func() { k.done <- runKeeper(a, paneOut, k.keys) }()
	if err := relay.WaitFor(k.sock, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { feed.Close(); <-k.done })
	return k
}

func (k *testKeeper) write(s string) {
	k.t.Helper()
	if _, err := k.feed.Write([]byte(s)); err != nil {
		k.t.Fatal(err)
	}
}

func (k *testKeeper) dial() *client {
	k.t.Helper()
	conn, err := relay.DialSocket(k.sock)
	if err != nil {
		k.t.Fatal(err)
	}
	c := &client{conn: conn, r: bufio.NewReader(conn)}
	k.t.Cleanup(func() { c.Close() })
	return c
}

// next reads follow events until one of stream comes, gathering data.
func next(t *testing.T, c *client) event {
	t.Helper()
	ev, err := c.Next()
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func TestKeeperFollowsReadsAndEnds(t *testing.T) {
	k := startTestKeeper(t)
	follower := k.dial()
	if err := follower.Follow(0, 0); err != nil {
		t.Fatal(err)
	}
	// Before START: the window's own bytes, not the job's.
	k.write("noise" + markers.Start(testID) + "hello\r\n")
	if ev := next(t, follower); ev.Stream != "out" || ev.Offset != 0 || string(ev.Data) != "hello\n" {
		t.Fatalf("first event: %+v", ev)
	}
	k.write(string(markers.AppendStderrFrame(nil, testID, []byte("oops\r\n"))) + "part")
	got := map[string]string{}
	for got["err"] == "" || got["out"] != "part" {
		ev := next(t, follower)
		got[ev.Stream] += string(ev.Data)
	}
	if got["err"] != "oops\n" {
		t.Fatalf("stderr: %q", got["err"])
	}

	c := k.dial()
	info, err := c.Info()
	if err != nil {
		t.Fatal(err)
	}
	if !info.Running || info.Status != nil || info.OutputBytes != 10 || info.StderrBytes != 5 || info.LastLine != "part" ||
		info.Name != "web" || info.Command != "serve" || info.Pane != "%9" || info.Waiters != 1 {
		t.Fatalf("info while running: %+v", info)
	}

	k.write("ial\r\n" + markers.End(testID, 3) + "after the end")
	for ev := next(t, follower); ev.Stream != "end"; ev = next(t, follower) {
		if ev.Stream != "out" || string(ev.Data) != "ial\n" {
			t.Fatalf("event before the end: %+v", ev)
		}
	}
	info, err = c.Info()
	if err != nil || info.Running || info.Status == nil || *info.Status != 3 || info.LastLine != "partial" || info.Ended == nil {
		t.Fatalf("info once ended: %+v, %v", info, err)
	}

	h, data, err := c.Read("out", 6)
	if err != nil || !h.Ended || h.Total != 14 || len(data) != 1 || string(data[0]) != "partial\n" {
		t.Fatalf("read from 6: %+v %q %v", h, data, err)
	}
	h, data, err = c.Read("err", 0)
	if err != nil || h.Total != 5 || string(data[0]) != "oops\n" {
		t.Fatalf("read stderr: %+v %q %v", h, data, err)
	}
	// A follow of an ended job gets what is left, and the end.
	late := k.dial()
	late.Follow(14, 0)
	if ev := next(t, late); ev.Stream != "err" || string(ev.Data) != "oops\n" {
		t.Fatalf("late follow: %+v", ev)
	}
	if ev := next(t, late); ev.Stream != "end" || ev.Status != 3 {
		t.Fatalf("late follow's end: %+v", ev)
	}
}

func TestKeeperTellsFollowersTheWindowIsGone(t *testing.T) {
	k := startTestKeeper(t)
	follower := k.dial()
	follower.Follow(0, -1)
	k.write(markers.Start(testID) + "x\r\n")
	next(t, follower)
	k.feed.Close()
	if ev := next(t, follower); ev.Stream != "gone" {
		t.Fatalf("want gone, got %+v", ev)
	}
	<-k.done
	k.done <- nil
	if _, err := os.Stat(k.sock); !os.IsNotExist(err) {
		t.Fatalf("the socket stays: %v", err)
	}
}

func TestKeeperTypesTextAsAPasteWhenTheProgramAskedForIt(t *testing.T) {
	k := startTestKeeper(t)
	c := k.dial()
	k.write(markers.Start(testID))
	if err := c.Send("a $x\nb", true); err != nil {
		t.Fatal(err)
	}
	if got := <-k.keys; got != "a $x\rb\r" {
		t.Fatalf("paste off: typed %q", got)
	}
	k.write("\x1b[?2004h> ")
	c.Info() // the stream above is read once the keeper answers after it
	if err := c.Send("a\nb\x1b[201~", false); err != nil {
		t.Fatal(err)
	}
	if got := <-k.keys; got != "\x1b[200~a\rb\x1b[201~" {
		t.Fatalf("paste on: typed %q", got)
	}
	if err := c.Type("\x03"); err != nil {
		t.Fatal(err)
	}
	if got := <-k.keys; got != "\x03" {
		t.Fatalf("type: %q", got)
	}
}

func TestKeeperRefusesBadRequests(t *testing.T) {
	k := startTestKeeper(t)
	c := k.dial()
	for _, req := range []string{"read sideways 0", "read out x", "frobnicate"} {
		if err := c.request("%s", req); err != nil {
			t.Fatal(err)
		}
		if _, err := c.line(); err == nil || !strings.Contains(err.Error(), "request") {
			t.Fatalf("%q: want an error, got %v", req, err)
		}
	}
}

func TestTypedText(t *testing.T) {
	for _, c := range []struct {
		text  string
		paste markers.PasteMode
		enter bool
		want  string
	}{
		{"ls", markers.PasteOff, true, "ls\r"},
		{"ls", markers.PasteUnknown, false, "ls"},
		{"a\r\nb\nc", markers.PasteOff, true, "a\rb\rc\r"},
		{"a\nb", markers.PasteOn, true, "\x1b[200~a\rb\x1b[201~\r"},
		{"", markers.PasteOn, true, "\r"},
	} {
		if got := typedText(c.text, c.paste, c.enter); got != c.want {
			t.Errorf("typedText(%q, %s, %v) = %q, want %q", c.text, c.paste, c.enter, got, c.want)
		}
	}
}

func TestASpareKeeperBecomesTheJobsWhenActivated(t *testing.T) {
	moved := make(chan *keeper, 1)
	moveWindow = func(k *keeper) error { moved <- k; return nil }
	defer func() { moveWindow = moveWindowWithTmux }()
	k := startTestKeeperWith(t, KeeperArgs{Spare: true})
	c := k.dial()
	k.write("nothing of a job's\r\n")
	if _, err := c.Info(); err != nil {
		t.Fatal(err)
	}
	jobSock := filepath.Join(filepath.Dir(k.sock), "job.sock")
	js := fmt.Sprintf(`{"id":%q,"name":"later","command":"serve","socket":%q}`, testID, jobSock)
	if err := c.request("activate %x", js); err != nil {
		t.Fatal(err)
	}
	if answer, err := c.line(); err != nil || answer != "ok %9" {
		t.Fatalf("activation: %q %v", answer, err)
	}
	if _, err := os.Stat(k.sock); !os.IsNotExist(err) {
		t.Fatalf("the spare's socket stays: %v", err)
	}
	if (<-moved).Name != "later" {
		t.Fatal("the window was not moved as the job's")
	}
	k.write(markers.Start(testID) + "hi\r\n")
	if err := c.request("started"); err != nil {
		t.Fatal(err)
	}
	if answer, err := c.line(); err != nil || answer != "running" {
		t.Fatalf("started: %q %v", answer, err)
	}
	conn, err := relay.DialSocket(jobSock)
	if err != nil {
		t.Fatal(err)
	}
	byName := &client{conn: conn, r: bufio.NewReader(conn)}
	defer byName.Close()
	info, err := byName.Info()
	if err != nil || info.Name != "later" || info.OutputBytes != 3 || !info.Running {
		t.Fatalf("the job by its socket: %+v %v", info, err)
	}
	// A second activation is refused.
	c.request("activate %x", js)
	if _, err := c.line(); err == nil {
		t.Fatal("activated twice")
	}
}
