package relay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// keysWriter hands each write (what the relay types into the pane) to a
// channel.
type keysWriter chan string

func (k keysWriter) Write(p []byte) (int, error) {
	k <- string(p)
	return len(p), nil
}

// testRelay is a relay on a fake pane: the test writes the pane's output
// to feed and reads what the relay types from keys.
type testRelay struct {
	t    *testing.T
	sock string
	feed *os.File
	keys keysWriter
	done chan error
}

// startRelay runs a relay for cfg (its socket in a private directory).
func startRelay(t *testing.T, cfg Config) *testRelay {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "rl") // unix socket paths are short
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	paneOut, feed, err := os.Pipe() // a pipe as tmux's pipe-pane gives
	if err != nil {
		t.Fatal(err)
	}
	r := &testRelay{t: t, sock: filepath.Join(dir, "r.sock"), feed: feed, keys: make(keysWriter, 16), done: make(chan error, 1)}
	cfg.Socket = r.sock
	go func() { r.done <- Serve(cfg, paneOut, r.keys) }()
	if err := WaitFor(r.sock, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { feed.Close(); <-r.done })
	return r
}

func sharedPane(t *testing.T) *testRelay { return startRelay(t, Config{PaneID: "%7", PanePID: 42}) }

func (r *testRelay) write(s string) {
	r.t.Helper()
	if _, err := r.feed.Write([]byte(s)); err != nil {
		r.t.Fatal(err)
	}
}

func (r *testRelay) turn(call string) *Turn {
	r.t.Helper()
	t, err := RequestTurn(t0, r.sock, call, time.Time{}, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { t.Close() })
	return t
}

// readN reads n bytes of a turn's stream.
func readN(t *testing.T, turn *Turn, n int) string {
	t.Helper()
	buf := make([]byte, n)
	if _, err := io.ReadFull(turn, buf); err != nil {
		t.Fatal(err)
	}
	return string(buf)
}

func TestRelayTypesForTheClientWhoseTurnItIs(t *testing.T) {
	r := sharedPane(t)
	first := r.turn("first")
	if first.Shell.State != markers.StateUnknown || first.PaneID != "%7" || first.PanePID != 42 ||
		first.Offset != 0 || first.Paste != cleantext.Unknown || first.Relay == "" {
		t.Fatalf("hello: got %+v", first.View)
	}
	// A queued client may not type: the relay hangs up on it.
	c, err := platform.DialUnix(r.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write(appendMessage(appendMessage(nil, "turn", "intruder"), "type", "intruder\r"))
	first.Type(" . '/x/it'\\''s.sh'\r")
	if got := <-r.keys; got != " . '/x/it'\\''s.sh'\r" {
		t.Fatalf("typed %q", got)
	}
	if _, err := bufio.NewReader(c).ReadString('\n'); err == nil {
		// It may hear that it is queued first; then the hang-up.
		if _, err := bufio.NewReader(c).ReadString('\n'); err == nil {
			t.Fatal("a client that typed before its turn must be hung up on")
		}
	}
	r.write("output")
	if got := readN(t, first, 6); got != "output" {
		t.Fatalf("stream: %q", got)
	}
	select {
	case k := <-r.keys:
		t.Fatalf("the queued client's keys were typed: %q", k)
	default:
	}
	// The next client learns what the shell said meanwhile, where in the
	// stream it starts, and where the cursor stands ("output$ ": no line
	// break came; the markers and escape sequences take no column).
	prompt := "$ " + promptEvent(99) + "\x1b[?2004h"
	r.write(prompt)
	readN(t, first, len(prompt))
	first.Close()
	third := r.turn("third")
	want := View{PaneID: "%7", PanePID: 42, Shell: markers.Snapshot{State: markers.StatePrompt, PID: 99}, Relay: first.Relay,
		Offset: int64(len("output") + len(prompt)), Paste: cleantext.On, Alternate: cleantext.Unknown, Column: 8}
	if third.View != want {
		t.Fatalf("hello: want %+v, got %+v", want, third.View)
	}
}

func TestTypeIfTypesOnlyWhenTheStreamIsWhereTheClientSawIt(t *testing.T) {
	r := sharedPane(t)
	turn := r.turn("make")
	r.write("a key of the human's")
	// The relay read the pipe before it answered: what came since the
	// client's look is there, and nothing was typed.
	if typed, err := turn.TypeIf("make\r"); err != nil || typed {
		t.Fatalf("TypeIf after output the client did not read: %v, %v", typed, err)
	}
	select {
	case k := <-r.keys:
		t.Fatalf("typed %q", k)
	default:
	}
	if got := readN(t, turn, len("a key of the human's")); got != "a key of the human's" {
		t.Fatalf("the stream that came: %q", got)
	}
	if typed, err := turn.TypeIf("make\r"); err != nil || !typed {
		t.Fatalf("TypeIf at the stream's end: %v, %v", typed, err)
	}
	if got := <-r.keys; got != "make\r" {
		t.Fatalf("typed %q", got)
	}
}

func TestAQueuedClientHearsAtOnceWhatHoldsThePane(t *testing.T) {
	r := sharedPane(t)
	holder := r.turn("make test")
	heard := make(chan Queued, 4)
	second := make(chan *Turn, 1)
	go func() {
		t2, err := RequestTurn(t0, r.sock, "ls", time.Time{}, func(q Queued) { heard <- q })
		if err != nil {
			t.Error(err)
		}
		second <- t2
	}()
	q := <-heard
	if q.Ahead != 1 || q.Call != "make test" || time.Since(q.Since) < 0 {
		t.Fatalf("notice: %+v", q)
	}
	thirdHeard := make(chan Queued, 4)
	third := make(chan *Turn, 1)
	go func() {
		t3, _ := RequestTurn(t0, r.sock, "pwd", time.Time{}, func(q Queued) { thirdHeard <- q })
		third <- t3
	}()
	if q := <-thirdHeard; q.Ahead != 2 || q.Call != "make test" {
		t.Fatalf("the third client, behind two: %+v", q)
	}
	holder.Close()
	t2 := <-second
	// The third one hears the new holder, and is one closer.
	if q := <-thirdHeard; q.Ahead != 1 || q.Call != "ls" {
		t.Fatalf("the third client, behind the new holder: %+v", q)
	}
	t2.Close()
	t3 := <-third
	// A client that comes right after the holder hung up (the agent's next
	// call) waits for nobody, whether or not the relay noticed the hang-up.
	for range 20 {
		t3.Close()
		var told []Queued
		next, err := RequestTurn(t0, r.sock, "next", time.Time{}, func(q Queued) { told = append(told, q) })
		if err != nil || told != nil {
			t.Fatalf("the next call: %v, told %+v", err, told)
		}
		t3 = next
	}
	t3.Close()
}

func TestQueriesAreAnsweredWhileACallHoldsThePane(t *testing.T) {
	r := sharedPane(t)
	holder := r.turn("make test")
	const id markers.ID = "0123456789abcdef"
	holder.Runs(string(id), "make test")
	source := " . '/rt/" + string(id) + ".sh'"
	holder.Type(source + "\r")
	<-r.keys // the relay serves a client's requests in order: runs is done
	stream := "$ " + promptEvent(9) + "ls /nonexistent\r\n" + commandLineEvent(9, "ls /nonexistent") +
		"ls: cannot access\r\n" + finishedEvent(9, 2, "/srv", "") + "$ " + promptEvent(9) +
		source + "\r\n" + commandLineEvent(9, source) + "[agent] $ make test\r\n" + markers.Start(id) + "ok\r\n"
	r.write(stream)
	readN(t, holder, len(stream))

	s, err := QueryStatus(r.sock)
	if err != nil {
		t.Fatal(err)
	}
	if s.PaneID != "%7" || s.PanePID != 42 || s.Shell != (markers.Snapshot{State: markers.StateRunning, PID: 9}) || s.ShellDir != "/srv" {
		t.Fatalf("status: %+v", s)
	}
	if s.Call == nil || s.Call.Call != "make test" || s.Call.Queued != 0 || time.Since(s.Call.Since) < 0 {
		t.Fatalf("the call that holds the pane: %+v", s.Call)
	}
	if s.Running == nil || s.Running.Command != "make test" || s.Running.Who != ByAgent || !s.Running.Running {
		t.Fatalf("the running command: %+v", s.Running)
	}
	es, err := QueryHistory(r.sock, 10)
	if err != nil || len(es) != 2 || es[0].Command != "ls /nonexistent" || *es[0].Status != 2 || es[0].Dir != "/srv" ||
		es[1].Who != ByAgent || !es[1].Running {
		t.Fatalf("history: %+v, %v", es, err)
	}
	for id, want := range map[int]string{0: "ls: cannot access\n", 2: "ok\n"} {
		e, body, err := QueryOutput(r.sock, id)
		if err != nil || string(body) != want || e.ID == 0 {
			t.Fatalf("output %d: got %+v, %q, %v", id, e, body, err)
		}
	}
	if _, _, err := QueryOutput(r.sock, 3); !IsAnswer(err) || !strings.Contains(err.Error(), "no command with id 3") {
		t.Fatalf("unknown id: %v", err)
	}
	if _, err := query(r.sock, "sing"); !IsAnswer(err) {
		t.Fatalf("a bad query: %v", err)
	}
}

func TestAQueryToNoRelaySaysSo(t *testing.T) {
	if _, err := QueryStatus("/nonexistent/r.sock"); !errors.Is(err, ErrNoRelay) {
		t.Fatalf("want ErrNoRelay, got %v", err)
	}
}

// A relay of the version before answers a query as this one does but for the version that ends
// it: the answer is refused as another version's (bridge.Query then replaces the relay).
func TestAnAnswerEndedWithoutOurVersionIsAnotherVersions(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "r.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, end := range []string{"end", fmt.Sprintf("end %d", Version-1)} {
		go func() {
			if c, err := ln.Accept(); err == nil {
				bufio.NewReader(c).ReadString('\n')
				c.Write([]byte("entry 1 user x6c73 false -1 0 0 x x 0 0 0\n" + end + "\n"))
				c.Close()
			}
		}()
		if _, err := QueryHistory(sock, 1); !errors.Is(err, ErrVersion) {
			t.Fatalf("an answer ended by %q: want ErrVersion, got %v", end, err)
		}
	}
}

func TestTheRelayRemovesItsSocket(t *testing.T) {
	r := sharedPane(t)
	r.feed.Close()
	<-r.done
	r.done <- nil
	if _, err := os.Stat(r.sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the socket must be gone: %v", err)
	}
}

// t0 is the context of the tests' turns.
var t0 = context.Background()

func TestTheLastLineKeptGivesTheCursorColumn(t *testing.T) {
	s := &server{}
	for _, c := range []struct {
		chunks []string
		col    int
	}{
		{[]string{"done\r\nuser@host:~$ "}, 13},
		{[]string{"line one\nline", " two"}, 8},
		{[]string{"\x1b[1;32mgreen\x1b[0m$ "}, 7},
		{[]string{"50%\r100% > "}, 7},
		{[]string{"a\n", strings.Repeat("x", maxLastLine+10)}, maxLastLine},
	} {
		s.lastLine = nil
		for _, p := range c.chunks {
			s.keepLastLine([]byte(p))
		}
		if _, got := drawnLine(s.lastLine); got != c.col {
			t.Errorf("%q: column %d, want %d", c.chunks, got, c.col)
		}
	}
}

func TestAPromptDrawnAgainOrALineErasedIsNoTypedLine(t *testing.T) {
	const promptEvent = "\x1b]6973;ptybridge;P;42\a" // the hooks' PROMPT event of shell 42
	prompt := "\r\n\x1b[32muser@host\x1b[0m:~$ " + promptEvent
	for _, c := range []struct {
		name   string
		chunks []string
		typed  bool
	}{
		{"the prompt", []string{prompt}, false},
		{"keys typed", []string{prompt, "e", "cho"}, true},
		{"keys typed and erased (readline's Ctrl-U)", []string{prompt, "echo", "\b\b\b\b\x1b[K"}, false},
		{"keys typed and erased (zsh's)", []string{prompt, "ab", "\b\b  \b\b"}, false},
		{"keys typed, one erased", []string{prompt, "ab", "\b\x1b[K"}, true},
		{"the prompt drawn again on a new line (zsh on a resize)", []string{prompt, "\r\n\x1b[32muser@host\x1b[0m:~$ "}, false},
		{"the prompt drawn again in place", []string{prompt, "\r\x1b[Kuser@host:~$ "}, false},
		{"a right prompt moved by a resize", []string{"\r\nhost% " + "\x1b[20C[right]\r\x1b[6C" + promptEvent,
			"\r\x1b[Khost% \x1b[10C[right]\r\x1b[6C"}, false},
		{"keys typed, the cursor moved back to the prompt's end", []string{prompt, "echo", "\b\b\b\b"}, true},
		{"a long line typed that wrapped", []string{prompt, strings.Repeat("x", 100)}, true},
	} {
		s := &server{}
		for _, p := range c.chunks {
			s.follow([]byte(p))
		}
		if got := s.tracker.Snapshot().State == markers.StateTyped && !s.promptShownEmpty(drawnLine(s.lastLine)); got != c.typed {
			t.Errorf("%s: typed %v, want %v", c.name, got, c.typed)
		}
	}
}

// The line editor's vi command mode reaches a status and a turn's hello,
// also when what it drew reads as typing that left the prompt empty
// (zsh's line erased with dd in command mode).
func TestTheViewSaysTheLineEditorIsInViCommandMode(t *testing.T) {
	r := sharedPane(t)
	viMode := func(cmd bool) string {
		return map[bool]string{true: "\x1b]6973;ptybridge;K;9;cmd\a", false: "\x1b]6973;ptybridge;K;9;ins\a"}[cmd]
	}
	wantVi := func(stream string, want bool) {
		t.Helper()
		r.write(stream)
		turn := r.turn("check")
		if turn.Shell.ViCommand != want || turn.Shell.PID != 9 {
			t.Fatalf("after %q: the hello says %+v, want vi command mode %v", stream, turn.Shell, want)
		}
		turn.Close()
		s, err := QueryStatus(r.sock)
		if err != nil || s.Shell.ViCommand != want {
			t.Fatalf("after %q: the status says %+v (%v), want vi command mode %v", stream, s.Shell, err, want)
		}
	}
	wantVi("$ "+promptEvent(9)+viMode(false), false)
	wantVi(viMode(true), true)
	wantVi("ls -l", true)                                        // a line recalled (k): typed, in command mode
	wantVi("\b\b\b\b\b\x1b[K", true)                             // and erased (dd): the prompt, in command mode
	wantVi(viMode(false), false)                                 // i
	wantVi(viMode(true)+"\r\n"+commandLineEvent(9, "ls"), false) // Enter runs the line
}

func TestAClosedChannelIsClosedWithinNoTime(t *testing.T) {
	closed := make(chan struct{})
	close(closed)
	for i := range 200 {
		if !closedWithin(closed, 0) {
			t.Fatalf("try %d: a closed channel was taken for open when asked with no time to wait", i)
		}
	}
	if closedWithin(make(chan struct{}), 0) {
		t.Fatal("an open channel was taken for closed")
	}
}
