//go:build linux && !portable

package platform

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// A prompt on the screen is not enough to know that a REPL is done: output can look like one
// (print(">>> fake")). The second signal is the kernel's: the REPL sleeps until the terminal has
// input. Measured on Linux 6.x, its threads then sleep in wait_woken (n_tty_read on older kernels:
// a plain read(), cooked REPLs and getpass), or in poll_schedule_timeout, do_select, do_sys_poll
// (python's readline), ep_poll, do_epoll_wait (node) with a line editor reading the terminal,
// non-canonical. Python's time.sleep is hrtimer_nanosleep, a busy loop is state R. Node keeps the
// terminal non-canonical while it awaits a promise: prompt-shaped output without a newline is
// ambiguous there.
var (
	ttyReadWaits = []string{"wait_woken", "n_tty_read"}
	selectWaits  = []string{"poll_schedule_timeout", "do_select", "do_sys_poll"}
	pollWaits    = slices.Concat(selectWaits, []string{"ep_poll", "do_epoll_wait"})
)

// WaitsForInput reports whether process pid sleeps until tty has input: no thread runs, one reads a
// terminal or polls with a line editor's. A process we may not trace (sudo), whose wait channel
// reads "0", waits for the human with the terminal in a password prompt's mode.
func WaitsForInput(pid int, tty *os.File) bool {
	reading, polling, hidden := false, false, false
	for _, dir := range taskDirs(pid) {
		if taskState(dir) != 'S' {
			return false // running, in disk I/O, stopped or gone
		}
		switch wchan := readTrimmed(dir + "wchan"); {
		case wchan == "0":
			if _, _, _, hidden = syscallOf(pid, dir); !hidden {
				return false // not hidden: it runs again by now, or is gone
			}
		case hasAnyPrefix(wchan, ttyReadWaits):
			reading = reading || readsTerminal(pid, dir)
		case hasAnyPrefix(wchan, pollWaits):
			polling = true
		}
	}
	return reading || (polling && EditsLines(tty)) || (hidden && passwordMode(tty))
}

// SeesReads: the OS tells a read of the terminal from any other sleep.
const SeesReads = true

// WaitsAtPrompt is WaitsForInput for a program whose prompt shows: the same, where procfs tells.
func WaitsAtPrompt(pid int, tty *os.File) bool { return WaitsForInput(pid, tty) }

// WaitsOnlyForInput is a stricter WaitsForInput, for when no prompt backs it up: not epoll, where
// an event loop awaits anything (node's timer); wait_woken only for a read of tty /proc shows (not
// of a TCP socket); poll or select with tty non-canonical (REPLs evaluate in canonical mode).
func WaitsOnlyForInput(pid int, tty *os.File) bool {
	if tty == nil {
		return false
	}
	waiting := false
	for _, dir := range taskDirs(pid) {
		if taskState(dir) != 'S' {
			return false
		}
		wchan := readTrimmed(dir + "wchan")
		waiting = waiting ||
			hasAnyPrefix(wchan, selectWaits) && EditsLines(tty) ||
			hasAnyPrefix(wchan, ttyReadWaits) && readsFile(pid, dir, tty.Name())
	}
	return waiting
}

// AtLineEditor: the shell waits for keys in its line editor: polls, the terminal non-canonical.
func AtLineEditor(shellPID int) bool {
	tty := OpenTTY(TTYOf(shellPID))
	if tty == nil {
		return false
	}
	defer tty.Close()
	dir := fmt.Sprintf("/proc/%d/", shellPID)
	return taskState(dir) == 'S' && hasAnyPrefix(readTrimmed(dir+"wchan"), pollWaits) && EditsLines(tty)
}

// readsTerminal reports whether the task at taskDir, in wait_woken, reads a terminal (not a socket,
// nor writes to a full terminal and then exits); trusted when /proc hides the system call.
func readsTerminal(pid int, taskDir string) bool {
	nr, file, ok, hidden := syscallOf(pid, taskDir)
	isRead := nr == unix.SYS_READ || nr == unix.SYS_READV || nr == unix.SYS_PREAD64
	return hidden || ok && isRead && (file == "" || isTerminalPath(file))
}

// readsFile reports whether the task at taskDir is in a read() of file.
func readsFile(pid int, taskDir, file string) bool {
	nr, f, ok, _ := syscallOf(pid, taskDir)
	return ok && nr == unix.SYS_READ && f == file
}

// syscallOf is the system call of the task at taskDir, ok when /proc shows
// it: its number, and the file its first argument names as a descriptor of
// pid ("": unknown). It is hidden from us for a set-uid program, or by Yama.
func syscallOf(pid int, taskDir string) (nr int, file string, ok, hidden bool) {
	b, err := readProcFile(taskDir + "syscall")
	if err != nil {
		return 0, "", false, errors.Is(err, fs.ErrPermission)
	}
	var fd int64
	if _, err := fmt.Sscanf(string(b), "%d 0x%x", &nr, &fd); err != nil {
		return 0, "", false, false // "running"
	}
	file, _ = os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd))
	return nr, file, true, false
}

func hasAnyPrefix(s string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(s, p) })
}
