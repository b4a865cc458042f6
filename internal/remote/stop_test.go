package remote

import (
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// A stop reaches the call whether it comes after the call's record or before it (as a note).
func TestStopReachesTheCallBeforeOrAfterItsRecord(t *testing.T) {
	got := make(chan os.Signal, 2)
	signal.Notify(got, syscall.SIGUSR1)
	defer signal.Stop(got)
	receive := func(what string) {
		t.Helper()
		select {
		case <-got:
		case <-time.After(10 * time.Second): // a hang guard, no performance limit
			t.Fatalf("%s: no signal", what)
		}
	}
	dir := t.TempDir()
	caught := make(chan struct{})
	close(caught) // signal.Notify above
	const id = "0123456789abcdef"

	done := Register(dir, id, caught)
	if err := Stop(dir, id, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	receive("a stop after the record")
	done()
	if _, err := os.Stat(callFile(dir, id)); err == nil {
		t.Fatal("the record outlived the call")
	}

	const early = "fedcba9876543210"
	if err := Stop(dir, early, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	select {
	case <-got:
		t.Fatal("signalled with no call recorded")
	default:
	}
	defer Register(dir, early, caught)()
	receive("a stop before the record")
	if _, err := os.Stat(stopFile(dir, early)); err == nil {
		t.Fatal("the note outlived its reading")
	}
	if err := Stop(dir, "../x", syscall.SIGUSR1); err == nil {
		t.Fatal("an invalid id was taken")
	}
}
