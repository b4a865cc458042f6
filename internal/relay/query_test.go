package relay

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// startRelay runs a relay on a fresh socket; feed is the pane's output.
func startRelay(t *testing.T) (sock string, feed *io.PipeWriter, keys keysWriter) {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "rl") // unix socket paths are short
	if err != nil {
		t.Fatal(err)
	}
	sock = filepath.Join(dir, "r.sock")
	paneOut, feed := io.Pipe()
	keys = make(keysWriter, 16)
	done := make(chan error, 1)
	go func() { done <- run(sock, "%7", 42, paneOut, keys, nil) }()
	t.Cleanup(func() {
		feed.Close()
		<-done
		os.RemoveAll(dir)
	})
	if err := WaitFor(sock, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	return sock, feed, keys
}

func TestQueriesAreAnsweredWhileACallHoldsThePane(t *testing.T) {
	sock, feed, keys := startRelay(t)
	holder, err := Dial(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := holder.WaitTurn(time.Time{}, nil); err != nil {
		t.Fatal(err)
	}
	holder.Declare("make test")
	const id markers.ID = "0123456789abcdef"
	if err := holder.Job(id, "make test"); err != nil {
		t.Fatal(err)
	}
	source := " . '/rt/" + string(id) + ".sh'"
	holder.Type(source + "\r")
	<-keys // the relay serves a client's requests in order: call and job are done
	stream := "$ " + markers.PromptEvent(9) + "ls /nonexistent\r\n" + markers.CommandLineEvent(9, "ls /nonexistent") +
		"ls: cannot access\r\n" + markers.FinishedEvent(9, 2, "/srv", "") + "$ " + markers.PromptEvent(9) +
		source + "\r\n" + markers.CommandLineEvent(9, source) + "[agent] $ make test\r\n" + markers.Start(id) + "ok\r\n"
	feed.Write([]byte(stream))
	io.ReadFull(holder, make([]byte, len(stream)))

	a, _, err := Query(sock, "status")
	if err != nil {
		t.Fatal(err)
	}
	if a.PaneID != "%7" || a.PanePID != 42 || a.Snapshot() != (markers.Snapshot{State: markers.StateRunning, PID: 9}) || a.ShellDir != "/srv" {
		t.Fatalf("status: %+v", a)
	}
	if a.Call == nil || a.Call.Call != "make test" || a.Call.Queued != 0 || time.Since(a.Call.Since) < 0 {
		t.Fatalf("the call that holds the pane: %+v", a.Call)
	}
	if a.Running == nil || a.Running.Command != "make test" || a.Running.Who != ByAgent || !a.Running.Running {
		t.Fatalf("the running command: %+v", a.Running)
	}

	a, _, err = Query(sock, "history 10")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Entries) != 2 || a.Entries[0].Command != "ls /nonexistent" || *a.Entries[0].Status != 2 || a.Entries[0].Dir != "/srv" ||
		a.Entries[1].Who != ByAgent || !a.Entries[1].Running {
		t.Fatalf("history: %+v", a.Entries)
	}

	for _, c := range []struct{ req, want string }{{"output 0", "ls: cannot access\r\n"}, {"output 2", "ok\r\n"}} {
		a, body, err := Query(sock, c.req)
		if err != nil || string(body) != c.want || a.Entry == nil || a.Size != len(c.want) {
			t.Fatalf("%s: got %+v, %q, %v", c.req, a, body, err)
		}
	}
	for _, req := range []string{"output 3", "output x", "history", "sing"} {
		if a, _, err := Query(sock, req); err != nil || a.Error == "" {
			t.Fatalf("%s: want an error in the answer, got %+v, %v", req, a, err)
		}
	}
	if a, _, _ := Query(sock, "output 3"); !strings.Contains(a.Error, "no command with id 3") {
		t.Fatalf("unknown id: %q", a.Error)
	}
}

func TestAQueryToNoRelaySaysSo(t *testing.T) {
	if _, _, err := Query("/nonexistent/r.sock", "status"); !errors.Is(err, ErrNoQueries) {
		t.Fatalf("want ErrNoQueries, got %v", err)
	}
}

func TestTheRelayRemovesItsQuerySocket(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "rl")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sock := filepath.Join(dir, "r.sock")
	paneOut, feed := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(sock, "%7", 42, paneOut, io.Discard, nil) }()
	if err := WaitFor(sock, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(QuerySocket(sock)); err != nil {
		t.Fatal(err)
	}
	feed.Close()
	<-done
	if _, err := os.Stat(QuerySocket(sock)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the query socket must be gone: %v", err)
	}
}
