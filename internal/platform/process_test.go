package platform

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
	if p.State != 'R' && p.State != 'S' {
		t.Fatalf("ReadProc = %+v: neither running nor asleep", p)
	}
}

// A child that changes directory and execs: what each reader says of it, before and after.
func TestTheReadersOfAChild(t *testing.T) {
	cmd := exec.Command("sh", "-c", "cd / && read -r _ && exec sleep 60")
	cmd.Env = append(os.Environ(), "PTB_READERS=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	pid := cmd.Process.Pid
	eventually(t, "the cd", func() bool { dir, _ := Cwd(pid); return dir == "/" })
	before := ExecImage(pid)
	if before == "" || ExecImage(pid) != before {
		t.Fatalf("ExecImage = %q, then %q", before, ExecImage(pid))
	}
	if Parent(pid) != os.Getpid() || !slices.Contains(Children(os.Getpid()), pid) {
		t.Fatalf("parent %d, our children %v", Parent(pid), Children(os.Getpid()))
	}
	if !slices.Contains(Environ(pid), "PTB_READERS=1") {
		t.Fatalf("Environ lacks PTB_READERS=1: %q", Environ(pid))
	}
	stdin.Write([]byte("\n"))
	eventually(t, "the exec", func() bool { return Comm(pid) == "sleep" })
	if got := Args(pid); !slices.Equal(got, []string{"sleep", "60"}) || Name(pid) != "sleep" {
		t.Fatalf("Args = %q, Name = %q", got, Name(pid))
	}
	if exe, err := Executable(pid); err != nil || filepath.Base(exe) != "sleep" {
		t.Fatalf("Executable = %q, %v", exe, err)
	}
	if after := ExecImage(pid); after == "" || after == before {
		t.Fatalf("ExecImage %q before the exec, %q after", before, after)
	}
	if Stopped(pid) {
		t.Fatal("stopped before it was")
	}
	cmd.Process.Signal(syscall.SIGSTOP)
	eventually(t, "the stop", func() bool { return Stopped(pid) })
}
