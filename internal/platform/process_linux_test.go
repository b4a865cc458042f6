package platform

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestStartTimeOfThisProcess(t *testing.T) {
	start, err := StartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// The test binary started a moment ago; the clock ticks are 10 ms.
	if age := time.Since(start); age < -50*time.Millisecond || age > 10*time.Minute {
		t.Fatalf("started %v ago?", age)
	}
	if uid, err := ProcessOwner(os.Getpid()); err != nil || uid != os.Geteuid() || !OwnedByUs(os.Getpid()) {
		t.Fatalf("owner: %d, %v", uid, err)
	}
	if !SharesOurUserAndNamespaces(os.Getpid()) {
		t.Fatal("we do not share our own user and namespaces")
	}
	if wd, _ := os.Getwd(); must(Cwd(os.Getpid())) != wd {
		t.Fatalf("cwd: %q, want %q", must(Cwd(os.Getpid())), wd)
	}
	if SameTerminal(os.Getpid(), 1<<30) {
		t.Fatal("no process has pid 2^30")
	}
}

func TestReadProcOfThisProcess(t *testing.T) {
	p, err := ReadProc(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if p.PID != os.Getpid() || p.PPID != os.Getppid() || p.PGID != syscall.Getpgrp() {
		t.Fatalf("ReadProc = %+v, want pid %d, ppid %d, pgid %d", p, os.Getpid(), os.Getppid(), syscall.Getpgrp())
	}
	if p.Image == "" || ExecImage(os.Getpid()) != fmt.Sprintf("%d %s", os.Getpid(), p.Image) {
		t.Fatalf("no exec image: %+v", p)
	}
}

// The command name may hold spaces and parentheses: the fields count
// from the last ')'.
func TestReadStatOfAStrangeCommandName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stat")
	line := "4242 (a) b (c) S 1 4242 4242 34817 4300 4194560 0 0 0 0 0 0 0 0 20 0 1 0 123456 0 0 " +
		"18446744073709551615 94000000000000 94000000100000 140700000000000 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := readStat(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Proc{PID: 4242, State: 'S', PPID: 1, PGID: 4242, SID: 4242, TTY: 34817, TPGID: 4300, StartTicks: 123456,
		Image: "94000000000000 94000000100000 140700000000000"}
	if p != want {
		t.Fatalf("readStat = %+v, want %+v", p, want)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
