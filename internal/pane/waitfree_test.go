package pane

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
)

// waitLong is a --wait-free that a working waiter never waits out here.
const waitLong = 30 * time.Second

func testBridge(t *testing.T) bridge.Bridge {
	return bridge.Bridge{Name: "waitfree-test", RuntimeDir: t.TempDir()}
}

func TestFreeWaiterTriesAgainOnlyAfterARefusalThatClears(t *testing.T) {
	busy := &failure.Error{Code: failure.ExitBusy, Msg: "the shared terminal is busy: x", Hint: "ask"}
	for _, c := range []struct {
		name  string
		limit time.Duration
		err   error
		again bool
	}{
		{"no --wait-free: refuse at once", 0, busy, false},
		{"success", waitLong, nil, false},
		{"a failure that needs the agent (125)", waitLong, &failure.Error{Msg: "no REPL"}, false},
		{"a timeout (124)", waitLong, &failure.Error{Code: failure.ExitTimeout, Msg: "--max-time"}, false},
		{"an unexpected error", waitLong, errors.New("boom"), false},
		{"a busy terminal", waitLong, busy, true},
		{"a half-typed line", waitLong, HalfTypedError, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var said strings.Builder
			w := NewFreeWaiter(testBridge(t), c.limit, &said)
			if got := w.Again(c.err); got != c.again {
				t.Fatalf("Again = %v, want %v", got, c.again)
			}
			if c.again != (said.Len() > 0) {
				t.Fatalf("it says what it waits for exactly when it waits; said %q", said.String())
			}
		})
	}
}

func TestFreeWaiterSaysEachReasonOnce(t *testing.T) {
	var said strings.Builder
	w := NewFreeWaiter(testBridge(t), waitLong, &said)
	for _, err := range []error{HalfTypedError, HalfTypedError, busyError("less", []string{"less", "notes.txt"}), HalfTypedError} {
		if !w.Again(err) {
			t.Fatal("the time is not up")
		}
	}
	if got := said.String(); strings.Count(got, "\n") != 2 || strings.Count(got, "not pressed Enter") != 1 ||
		!strings.HasPrefix(got, "ptysend: waiting up to 30s (--wait-free) for the shared terminal to be free: the user has typed") {
		t.Fatalf("want one line for each reason, got:\n%s", got)
	}
}

func TestFreeWaiterGivesUpWithTheRefusal(t *testing.T) {
	var said strings.Builder
	w := NewFreeWaiter(testBridge(t), time.Millisecond, &said)
	time.Sleep(2 * time.Millisecond) // the wait is over before the first refusal
	if w.Again(HalfTypedError) {
		t.Fatal("the time is up")
	}
	got := failure.From(w.Final(HalfTypedError))
	if got.Code != failure.ExitBusy || !strings.HasPrefix(got.Msg, HalfTypedError.Msg) ||
		!strings.HasSuffix(got.Msg, "(still so after waiting 1ms with --wait-free)") || got.Hint != HalfTypedError.Hint {
		t.Fatalf("got %+v", got)
	}
	if strings.Contains(HalfTypedError.Msg, "still so") {
		t.Fatal("the shared refusal must not change")
	}
	if w.Final(nil) != nil {
		t.Fatal("success stays success")
	}
	once := failure.From(NewFreeWaiter(testBridge(t), 0, &said).Final(HalfTypedError))
	if once.Code != failure.ExitBusy || once.Msg != HalfTypedError.Msg ||
		once.Hint != HalfTypedError.Hint+"; or rerun with --wait-free DURATION (e.g. --wait-free 2m) to have ptysend wait for it" {
		t.Fatalf("a call that did not wait says it could have: %+v", once)
	}
	other := &failure.Error{Msg: "no REPL"}
	if w.Final(other) != other {
		t.Fatal("other failures pass unchanged")
	}
}

func TestFreeWaiterWaitsForCopyModeToEnd(t *testing.T) {
	b := testBridge(t)
	mode := b.File(".mode")
	if err := os.WriteFile(mode, []byte("1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := NewFreeWaiter(b, waitLong, &strings.Builder{})
	go func() {
		time.Sleep(3 * recheck)
		os.WriteFile(mode, []byte("0\n"), 0o600)
	}()
	if !w.Again(CopyModeError) {
		t.Fatal("copy mode ended well before the time was up: try again")
	}
	if b.InCopyMode() {
		t.Fatal("it must not try again while the human still scrolls")
	}
}
