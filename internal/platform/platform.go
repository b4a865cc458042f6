// Package platform holds every call that is the operating system's own (procfs, sysctl, pidfd,
// kqueue, terminals, locks, sockets, random bytes), behind an API that says nothing of the OS. No
// other package may import golang.org/x/sys/unix or read /proc (tests aside). It never signals a
// process, types into a terminal or runs tmux.
//
// The files split by OS: platform.go and terminal.go hold what is OS-neutral or built on the
// others; files_unix.go the descriptor calls Linux, macOS and FreeBSD make alike; *_linux.go
// Linux's own (procfs, pidfd, getrandom); *_bsd.go what macOS and FreeBSD share (sysctl kern.proc,
// kqueue, LOCAL_PEERCRED, TIOCGETA); *_darwin.go and *_freebsd.go the rest.
//
// Where an OS offers nothing like Linux's procfs (a wait channel, /proc/PID/syscall, the exec's
// code addresses, per-process I/O counters) or OFD byte-range locks, a portable fallback answers,
// weaker: wait_portable.go, process_portable.go, locks_flock.go, built with "!linux || portable".
// The build tag portable makes Linux use them too, in place of wait_procfs.go, process_procfs.go
// and locks_ofd.go ("linux && !portable"), so that the logic macOS runs is tested on Linux (go
// test -tags portable ./...). Linux keeps procfs for the process table even then: it has no
// sysctl kern.proc.
package platform

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// ErrWouldWait is ReadNow's: nothing to read yet, and a writer is left.
var ErrWouldWait = errors.New("nothing to read yet")

// UnixListener is a listening unix socket: descriptors the runtime poller serves, without package
// net's 0.5 MB in every call's memory (seq 1 300000 peaked at 5.3-5.8 MiB, now 4.8-5.0).
type UnixListener struct{ f *os.File }

var errListenerClosed = errors.New("listener closed")

// Close makes a waiting Accept return. It never removes the socket file.
func (l *UnixListener) Close() error { return l.f.Close() }

// BlockingConn is a unix socket on blocking calls with timeouts: the poller's setup slows a query.
type BlockingConn int

// EditsLines reports whether a line editor (readline, zle, node) reads tty.
func EditsLines(tty *os.File) bool {
	canonical, _, _, ok := termMode(tty)
	return ok && !canonical
}

// passwordMode: lines read without echo, as getpass, sudo and su ask.
func passwordMode(tty *os.File) bool {
	canonical, echo, _, ok := termMode(tty)
	return ok && canonical && !echo
}

// TranslatesNewlines reports whether tty turns "\n" into "\r\n" (a default).
func TranslatesNewlines(tty *os.File) bool {
	_, _, onlcr, ok := termMode(tty)
	return !ok || onlcr
}

// TypedAhead reports keys typed ahead, waiting in the terminal's queue.
func TypedAhead(shellPID int) bool {
	tty := OpenTTY(TTYOf(shellPID))
	if tty == nil {
		return false
	}
	defer tty.Close()
	return Unread(tty) > 0
}

// Proc is what the kernel says of one process at one moment.
type Proc struct {
	PID, PPID, PGID, SID int    // the process, its parent, group and session
	State                byte   // 'R' running (macOS: alive), 'S' asleep, 'D' in disk I/O, 'T' stopped, 'Z' a zombie...
	TTY                  int    // the controlling terminal's device number; 0: none
	TPGID                int    // the foreground process group of that terminal; -1 or 0: none
	Start                int64  // when it started: Linux's clock ticks since boot, the BSDs' µs since 1970
	Image                string // Linux: where the kernel placed its code and stack, anew for each exec; "": unknown
}

// ForegroundPID is the foreground process group of the pane's terminal: the shell's at its prompt.
func ForegroundPID(panePID int) (int, error) {
	p, err := ReadProc(panePID)
	return p.TPGID, err
}

// Parent is the parent process of pid, 0 when unknown.
func Parent(pid int) int {
	p, _ := ReadProc(pid)
	return p.PPID
}

// SameTerminal reports whether pid and other share a controlling terminal.
func SameTerminal(pid, other int) bool {
	a, _ := ReadProc(pid)
	b, _ := ReadProc(other)
	return a.TTY != 0 && a.TTY == b.TTY
}

func Stopped(pid int) bool {
	p, _ := ReadProc(pid)
	return p.State == 'T'
}

// Name is the program name of pid, as a human would call it.
func Name(pid int) string { return NameFrom(pid, Args(pid)) }

// NameFrom is Name, with pid's Args already read.
func NameFrom(pid int, args []string) string {
	if len(args) > 0 && args[0] != "" {
		return strings.TrimPrefix(filepath.Base(args[0]), "-")
	}
	return Comm(pid)
}

// OwnedByUs reports whether the kernel's owner of process pid (root for a set-uid program) is our
// effective user, as a job's (the tmux server's) is, unlike a root shell's. "Ours" has other
// answers, not to be merged: SharesOurUserAndNamespaces and PeerUID.
func OwnedByUs(pid int) bool {
	uid, err := ProcessOwner(pid)
	return err == nil && uid == os.Geteuid()
}
