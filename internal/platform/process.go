package platform

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Proc is what the kernel says of one process at one moment.
type Proc struct {
	PID, PPID, PGID, SID int    // the process, its parent, group and session
	State                byte   // 'R' running, 'S' asleep, 'D' in disk I/O, 'T' stopped, 'Z' a zombie...
	TTY                  int    // the controlling terminal's device number; 0: none
	TPGID                int    // the foreground process group of that terminal; -1: none
	StartTicks           int64  // clock ticks since boot
	Image                string // where the kernel placed its code and stack, anew for each exec; "": unknown
}

// ForegroundPID is the foreground process group of the pane's terminal:
// a shell's pid while it waits at its prompt.
func ForegroundPID(panePID int) (int, error) {
	p, err := ReadProc(panePID)
	return p.TPGID, err
}

// Parent is the parent process of pid, 0 when unknown.
func Parent(pid int) int {
	p, _ := ReadProc(pid)
	return p.PPID
}

// SameTerminal reports whether processes pid and other share a
// controlling terminal.
func SameTerminal(pid, other int) bool {
	a, _ := ReadProc(pid)
	b, _ := ReadProc(other)
	return a.TTY != 0 && a.TTY == b.TTY
}

// Stopped reports whether process pid is stopped (Ctrl-Z).
func Stopped(pid int) bool {
	p, _ := ReadProc(pid)
	return p.State == 'T'
}

// ExecImage tells one exec of process pid from another; "" when unknown.
func ExecImage(pid int) string {
	p, _ := ReadProc(pid)
	if p.Image == "" {
		return ""
	}
	return fmt.Sprintf("%d %s", pid, p.Image)
}

// Name is the program name of pid, as a human would call it.
func Name(pid int) string {
	if args := Args(pid); len(args) > 0 && args[0] != "" {
		return strings.TrimPrefix(filepath.Base(args[0]), "-")
	}
	return Comm(pid)
}

// OwnedByUs reports whether the kernel's owner of process pid (root for a
// set-uid program) is our effective user, as a job's (the tmux server's)
// is, unlike a root shell's. "Ours" has other answers, not to be merged:
// SharesOurUserAndNamespaces and PeerUID.
func OwnedByUs(pid int) bool {
	uid, err := ProcessOwner(pid)
	return err == nil && uid == os.Geteuid()
}
