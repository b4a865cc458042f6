//go:build linux && !portable

package platform

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestTTYOfIsTheControllingTerminalWhateverTheStandardFiles(t *testing.T) {
	for _, script := range []string{
		"exec </dev/null >/dev/null 2>&1; exec sleep 60",
		// the alias, which opened by us would name our own terminal
		"exec </dev/tty; exec sleep 60",
	} {
		t.Run(script, func(t *testing.T) {
			pid := inTerminal(t, "sh", "-c", script).Process.Pid
			eventually(t, "sleep", func() bool { return Comm(pid) == "sleep" })
			got := TTYOf(pid)
			if !strings.HasPrefix(got, "/dev/pts/") {
				t.Fatalf("TTYOf = %q, want the pseudo-terminal", got)
			}
			if got == TTYOf(os.Getpid()) {
				t.Fatalf("TTYOf = %q, which is our own terminal", got)
			}
		})
	}
}

func TestWaitsForInput(t *testing.T) {
	cases := []struct {
		name   string
		argv   []string
		wchan  string // where it sleeps once it got there (the end of the name)
		waits  bool
		helper string // the process to look at, a child of argv's
		stuck  bool   // nobody reads the terminal's output
	}{
		{"a builtin read of the terminal", []string{"bash", "--norc", "-c", "read -r x"}, "wait_woken", true, "", false},
		{"a read of /dev/tty with stdin elsewhere", []string{"bash", "--norc", "-c", "read -r x </dev/tty"}, "wait_woken", true, "", false},
		{"a password prompt (getpass)", []string{"python3", "-c", "import getpass; getpass.getpass('Secret: ')"}, "wait_woken", true, "", false},
		{"sleep", []string{"sleep", "60"}, "hrtimer_nanosleep", false, "", false},
		{"a read of a quiet TCP connection", []string{"python3", "-c",
			"import socket; s = socket.create_server(('127.0.0.1', 0)); c = socket.create_connection(s.getsockname()); c.recv(1)"},
			"wait_woken", false, "", false},
		{"a read of a pipe", []string{"sh", "-c", "sleep 60 | cat"}, "pipe_read", false, "cat", false},
		{"a write to a terminal whose output is full", []string{"seq", "1000000000"}, "wait_woken", false, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			leader := inTerminalRead(t, !c.stuck, c.argv...).Process.Pid
			pid := leader
			if c.helper != "" {
				eventually(t, c.helper, func() bool { pid = childNamed(leader, c.helper); return pid > 0 })
			}
			tty := OpenTTY(TTYOf(leader))
			if tty == nil {
				t.Fatal("cannot open the terminal")
			}
			defer tty.Close()
			eventually(t, "the program to sleep in "+c.wchan, func() bool {
				return strings.HasSuffix(readTrimmed(fmt.Sprintf("/proc/%d/wchan", pid)), c.wchan)
			})
			if got := WaitsForInput(pid, tty); got != c.waits {
				t.Fatalf("WaitsForInput = %v, want %v", got, c.waits)
			}
		})
	}
}

// childNamed is a child of pid with the given name, or 0.
func childNamed(pid int, name string) int {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	for _, f := range strings.Fields(string(b)) {
		if c, _ := strconv.Atoi(f); Comm(c) == name {
			return c
		}
	}
	return 0
}

// A command blocked in its last write() to a full terminal sleeps in
// wait_woken, as a read of the terminal does; it can finish that write,
// exit and be reaped between the look at its wait channel and the read
// of its system call. A task that is gone reads no terminal: its system
// call is not hidden, as a set-uid program's is, only unreadable.
func TestATaskGoneBeforeItsSystemCallIsReadReadsNoTerminal(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid // reaped by Run
	if readsTerminal(pid, fmt.Sprintf("/proc/%d/task/%d/", pid, pid)) {
		t.Fatal("readsTerminal = true for a task that is gone")
	}
}
