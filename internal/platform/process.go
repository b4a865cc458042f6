package platform

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Proc is what the kernel says of one process at one moment, as far as
// ptybridge asks: read whole by ReadProc, so that every question about a
// process's family, terminal or state has one reader.
type Proc struct {
	PID   int
	State byte // 'R' running, 'S' asleep, 'D' in disk I/O, 'T' stopped, 'Z' a zombie...
	PPID  int  // the parent
	PGID  int  // the process group
	SID   int  // the session
	TTY   int  // the controlling terminal's device number; 0: none
	TPGID int  // the foreground process group of that terminal; -1: none
	// StartTicks is when it started, in clock ticks since boot.
	StartTicks int64
	// Image is where the kernel placed its code and stack, at random,
	// anew for each program it execs; "" when the kernel does not say.
	Image string
}

// ForegroundPID is the foreground process group of the pane's terminal,
// as the pane's process sees it. It equals a shell's pid while that
// shell waits at its prompt.
func ForegroundPID(panePID int) (int, error) {
	p, err := ReadProc(panePID)
	if err != nil {
		return 0, err
	}
	return p.TPGID, nil
}

// Parent is the parent process of pid, 0 when unknown.
func Parent(pid int) int {
	p, err := ReadProc(pid)
	if err != nil {
		return 0
	}
	return p.PPID
}

// SameTerminal reports whether process pid has the controlling terminal
// of process other, and one at all.
func SameTerminal(pid, other int) bool {
	a, err1 := ReadProc(pid)
	b, err2 := ReadProc(other)
	return err1 == nil && err2 == nil && a.TTY == b.TTY && a.TTY != 0
}

// Stopped reports whether process pid is stopped (Ctrl-Z).
func Stopped(pid int) bool {
	p, err := ReadProc(pid)
	return err == nil && p.State == 'T'
}

// ExecImage tells one exec of process pid from another: its pid and the
// place of its code and stack. "" when the kernel does not show them.
func ExecImage(pid int) string {
	p, err := ReadProc(pid)
	if err != nil || p.Image == "" {
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

// Which processes are "ours" has more than one answer, for different
// questions; each has its own name, and they must not be merged:
//
//   - OwnedByUs (ProcessOwner): the process's owner is our effective user.
//     The owner is the kernel's: the user it runs as, or root when the
//     process is not dumpable (a set-uid program). A job runs as the
//     user of the tmux server, so it takes no root shell's settings.
//   - SharesOurUserAndNamespaces: a shell that ptysend can drive the fast
//     way. It must be able to read the private runtime directory (same
//     effective user), see the same files there (same mount namespace)
//     and be watched through /proc (same pid namespace). A shell of
//     another user or namespace is driven through the terminal stream
//     instead (far mode).
//   - PeerUID (sockets_linux.go): the user of the process at the other
//     end of a unix socket, as it was when it connected.
//
// FileOwner is a file's owner, for the runtime directory's own check.

// OwnedByUs reports whether process pid is owned by our effective user
// (see ProcessOwner).
func OwnedByUs(pid int) bool {
	uid, err := ProcessOwner(pid)
	return err == nil && uid == os.Geteuid()
}
