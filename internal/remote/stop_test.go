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

// A stop that came before the call's record is sent only once the call's signals are caught:
// before, the signal's default action would end the call instead of stopping it.
func TestAnEarlyStopWaitsForTheCallsSignalsToBeCaught(t *testing.T) {
	got := make(chan os.Signal, 1)
	signal.Notify(got, syscall.SIGUSR2)
	defer signal.Stop(got)
	dir := t.TempDir()
	const id = "00112233445566aa"
	if err := Stop(dir, id, syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	caught := make(chan struct{})
	registered := make(chan func())
	go func() { registered <- Register(dir, id, caught) }()
	select {
	case <-registered:
		t.Fatal("Register went on before the signals were caught")
	case <-got:
		t.Fatal("signalled before the signals were caught")
	case <-time.After(50 * time.Millisecond): // a broken Register returns at once
	}
	close(caught)
	(<-registered)()
	select {
	case <-got:
	case <-time.After(10 * time.Second): // a hang guard, no performance limit
		t.Fatal("no signal once they were caught")
	}
}
