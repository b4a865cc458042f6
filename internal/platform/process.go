package platform

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Proc is what the kernel says of one process at one moment, read whole
// by ReadProc: every question about a process's family, terminal or
// state has that one reader.
type Proc struct {
	PID        int
	State      byte // 'R' running, 'S' asleep, 'D' in disk I/O, 'T' stopped, 'Z' a zombie...
	PPID       int
	PGID       int
	SID        int
	TTY        int   // the controlling terminal's device number; 0: none
	TPGID      int   // the foreground process group of that terminal; -1: none
	StartTicks int64 // clock ticks since boot
	// Image is where the kernel placed its code and stack, at random,
	// anew for each program it execs; "" when the kernel does not say.
	Image string
}

// ForegroundPID is the foreground process group of the pane's terminal,
// as the pane's process sees it: a shell's pid while it waits at its
// prompt.
func ForegroundPID(panePID int) (int, error) {
	p, err := ReadProc(panePID)
	return p.TPGID, err
}

// Parent is the parent process of pid, 0 when unknown.
func Parent(pid int) int {
	p, _ := ReadProc(pid)
	return p.PPID
}

// SameTerminal reports whether process pid has the controlling terminal
// of process other, and one at all.
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

// ExecImage tells one exec of process pid from another: its pid and the
// place of its code and stack. "" when the kernel does not show them.
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

// Which processes are "ours" has several answers, for different
// questions, which must not be merged:
//
//   - OwnedByUs: the kernel's owner of the process is our effective user.
//     That is the user it runs as, or root when it is not dumpable (a
//     set-uid program). A job runs as the tmux server's user, so it takes
//     no root shell's settings.
//   - SharesOurUserAndNamespaces: a shell ptysend can drive the fast way,
//     which must read the private runtime directory (same effective
//     user), see the same files there (same mount namespace) and be
//     watched through /proc (same pid namespace). Any other shell is
//     driven through the terminal stream (far mode).
//   - PeerUID: the user at the other end of a unix socket, as it was when
//     it connected.

// OwnedByUs reports whether process pid is owned by our effective user
// (see ProcessOwner).
func OwnedByUs(pid int) bool {
	uid, err := ProcessOwner(pid)
	return err == nil && uid == os.Geteuid()
}
