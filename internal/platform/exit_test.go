package platform

import (
	"context"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestWatchExitSeesTheExit(t *testing.T) {
	cmd := started(t, "sleep", "60")
	exited := WatchExit(t.Context(), cmd.Process.Pid)
	if exited == nil {
		t.Fatal("cannot watch a running process")
	}
	select {
	case <-exited:
		t.Fatal("exited before it was killed")
	case <-time.After(50 * time.Millisecond):
	}
	cmd.Process.Kill()
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the exit was not seen")
	}
}

func TestWatchExitOfAProcessGoneAlready(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if WatchExit(t.Context(), cmd.Process.Pid) != nil { // reaped by Run
		t.Fatal("watching a process that is gone")
	}
}

// A long-lived server watches many processes that may never exit: once
// a watch is cancelled, neither its pidfd nor a goroutine may remain, and
// no watch may hold a thread while it waits.
func TestWatchExitLeavesNothingBehindWhenCancelled(t *testing.T) {
	pid := started(t, "sleep", "600").Process.Pid
	fds, goroutines, threads := openFDs(t), runtime.NumGoroutine(), countThreads(t)
	const watches = 1000
	var cancels []context.CancelFunc
	var chans []<-chan struct{}
	for range watches {
		ctx, cancel := context.WithCancel(context.Background())
		exited := WatchExit(ctx, pid)
		if exited == nil {
			t.Fatal("cannot watch a running process")
		}
		cancels, chans = append(cancels, cancel), append(chans, exited)
	}
	if n := openFDs(t); n < fds+watches {
		t.Fatalf("%d descriptors open while %d watches run, want %d more than %d", n, watches, watches, fds)
	}
	if n := countThreads(t); n > threads+8 {
		t.Fatalf("%d threads while %d watches wait, %d before", n, watches, threads)
	}
	for _, cancel := range cancels {
		cancel()
	}
	deadline := time.Now().Add(10 * time.Second)
	for openFDs(t) > fds || runtime.NumGoroutine() > goroutines {
		if time.Now().After(deadline) {
			t.Fatalf("after cancelling: %d descriptors (%d before), %d goroutines (%d before)",
				openFDs(t), fds, runtime.NumGoroutine(), goroutines)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, exited := range chans {
		select {
		case <-exited:
			t.Fatal("a cancelled watch says the process exited")
		default:
		}
	}
}

// openFDs counts our open descriptors by asking each number: /proc/self/fd is Linux's, and
// FreeBSD's /dev/fd shows only 0 to 2 without fdescfs.
func openFDs(t *testing.T) int {
	t.Helper()
	n := 0
	for fd := range 1 << 14 {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
			n++
		}
	}
	return n
}

// countThreads is how many threads the runtime has made: Go never ends one it made.
func countThreads(t *testing.T) int {
	t.Helper()
	return pprof.Lookup("threadcreate").Count()
}
