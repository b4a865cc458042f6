package relay

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// keysWriter hands each write (what the relay types into the pane) to a
// channel.
type keysWriter chan string

func (k keysWriter) Write(p []byte) (int, error) {
	k <- string(p)
	return len(p), nil
}

func TestRelayTypesForTheClientWhoseTurnItIs(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "rl") // unix socket paths are short
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "r.sock")
	paneOut, feed := io.Pipe()
	keys := make(keysWriter, 4)
	done := make(chan error, 1)
	go func() { done <- run(sock, "%7", 42, paneOut, keys, nil) }()
	if err := WaitFor(sock, 10*time.Second); err != nil {
		t.Fatal(err)
	}

	first, err := Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	if err := first.WaitTurn(time.Time{}, nil); err != nil {
		t.Fatal(err)
	}
	if first.Shell.State != markers.StateUnknown || first.PaneID != "%7" || first.PanePID != 42 {
		t.Fatalf("greeting: got %+v", first)
	}
	if v := first.Stream; v.Offset != 0 || v.Paste != markers.PasteUnknown || v.Relay == "" {
		t.Fatalf("stream view in the greeting: got %+v", v)
	}

	// A queued client may not type: the relay hangs up on it.
	second, err := Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Type("intruder\r"); err != nil {
		t.Fatal(err)
	}
	if err := second.WaitTurn(time.Time{}, nil); err == nil {
		t.Fatal("a client that typed before its turn must be hung up on")
	}

	if err := first.Type(" . '/x/it'\\''s.sh'\r"); err != nil {
		t.Fatal(err)
	}
	if got := <-keys; got != " . '/x/it'\\''s.sh'\r" {
		t.Fatalf("typed %q", got)
	}
	feed.Write([]byte("output"))
	buf := make([]byte, 6)
	if _, err := io.ReadFull(first, buf); err != nil || string(buf) != "output" {
		t.Fatalf("stream: got %q, %v", buf, err)
	}
	select {
	case k := <-keys:
		t.Fatalf("the queued client's keys were typed: %q", k)
	default:
	}
	// The next client learns what the shell said meanwhile, and where in
	// the stream it starts.
	prompt := "$ " + markers.PromptEvent(99) + "\x1b[?2004h"
	feed.Write([]byte(prompt))
	io.ReadFull(first, make([]byte, len(prompt)))
	third, err := Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer third.Close()
	first.Close()
	if err := third.WaitTurn(time.Time{}, nil); err != nil {
		t.Fatal(err)
	}
	if want := (markers.Snapshot{State: markers.StatePrompt, PID: 99}); third.Shell != want {
		t.Fatalf("the shell's state in the greeting: want %v, got %v", want, third.Shell)
	}
	want := StreamView{Relay: first.Stream.Relay, Offset: int64(len("output") + len(prompt)), Paste: markers.PasteOn}
	if third.Stream != want {
		t.Fatalf("stream view: want %v, got %v", want, third.Stream)
	}
	feed.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func TestStreamViewRoundTrips(t *testing.T) {
	v := StreamView{Relay: newInstance(), Offset: 123456789, Paste: markers.PasteOn}
	if got, err := parseStreamView(v.String()); err != nil || got != v {
		t.Fatalf("%v: got %v, %v", v, got, err)
	}
	for _, bad := range []string{"", "a:1", ":1:on", "a:-1:on", "a:x:on", "a:1:maybe", "a:1:on:x"} {
		if _, err := parseStreamView(bad); err == nil {
			t.Errorf("%q must not parse", bad)
		}
	}
}

func TestAQueuedClientHearsAtOnceWhatHoldsThePane(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "rl")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "r.sock")
	paneOut, feed := io.Pipe()
	defer feed.Close()
	go run(sock, "%7", 42, paneOut, io.Discard, nil)
	if err := WaitFor(sock, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	dial := func() *Client {
		t.Helper()
		c, err := Dial(sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	holder := dial()
	var told []Queued
	if err := holder.WaitTurn(time.Time{}, func(q Queued) { told = append(told, q) }); err != nil || told != nil {
		t.Fatalf("the first client waits for nobody: %v, told %v", err, told)
	}

	// The holder has not said what it runs yet: a queued client hears
	// that it waits, and since when.
	second := dial()
	turn := make(chan error, 1)
	heard := make(chan Queued, 4)
	go func() { turn <- second.WaitTurn(time.Time{}, func(q Queued) { heard <- q }) }()
	q := <-heard
	if q.Ahead != 1 || q.Call != "" || time.Since(q.Since) < 0 {
		t.Fatalf("first notice: %+v", q)
	}
	// Once it says, every queued client hears it; a third is one further back.
	if err := holder.Declare("make test"); err != nil {
		t.Fatal(err)
	}
	if q2 := <-heard; q2.Call != "make test" || !q2.Since.Equal(q.Since) || q2.Ahead != 1 {
		t.Fatalf("after the declaration: %+v", q2)
	}
	third := dial()
	var thirdHeard []Queued
	thirdTurn := make(chan error, 1)
	go func() {
		thirdTurn <- third.WaitTurn(time.Time{}, func(q Queued) { thirdHeard = append(thirdHeard, q) })
	}()

	// A queued client may not declare: it is hung up on.
	intruder := dial()
	intruder.Declare("intruder")
	if err := intruder.WaitTurn(time.Time{}, nil); err == nil {
		t.Fatal("a client that declared before its turn must be hung up on")
	}

	holder.Close()
	if err := <-turn; err != nil {
		t.Fatal(err)
	}
	second.Close()
	if err := <-thirdTurn; err != nil {
		t.Fatal(err)
	}
	if len(thirdHeard) == 0 || thirdHeard[0].Ahead != 2 || thirdHeard[0].Call != "make test" {
		t.Fatalf("the third client: %+v", thirdHeard)
	}
	// A client that comes right after the holder hung up (the agent's next
	// call) waits for nobody, whether or not the relay noticed the hang-up.
	for range 20 {
		third.Close()
		next := dial()
		var told []Queued
		if err := next.WaitTurn(time.Time{}, func(q Queued) { told = append(told, q) }); err != nil || told != nil {
			t.Fatalf("the next call: %v, told %+v", err, told)
		}
		third = next
	}
}
