package proc

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A prompt on the screen is not enough to know that a REPL is done:
// output can look like a prompt (print(">>> fake")). The second signal
// is the kernel's: the REPL sleeps until the terminal has input. Measured
// on Linux 6.x (see tmux-facts.md), the REPL's threads then show:
//
//   - wait_woken (n_tty_read on older kernels): a plain read() of the
//     terminal; cooked-mode REPLs and getpass.
//   - poll_schedule_timeout, do_select, do_sys_poll (python's readline),
//     ep_poll or do_epoll_wait (node): waiting for any of several files;
//     the terminal is one of them only if the line editor is reading it,
//     and line editors switch the terminal to non-canonical mode for
//     that. Python's time.sleep is hrtimer_nanosleep, a busy loop is
//     state R, and a select() on a socket in cooked mode does not count.
//
// Node keeps the terminal non-canonical while it awaits a promise, so for
// node prompt-shaped output without a newline followed by an await is
// still ambiguous; output ending with a newline never is (the cursor line
// is then empty).

// ttyReadWaits are wait channels of a thread blocked reading a terminal.
var ttyReadWaits = []string{"wait_woken", "n_tty_read"}

// Wait channels of a thread waiting in poll or select, and in epoll,
// where an event loop waits (node's).
var (
	selectWaits = []string{"poll_schedule_timeout", "do_select", "do_sys_poll"}
	epollWaits  = []string{"ep_poll", "do_epoll_wait"}
	pollWaits   = slices.Concat(selectWaits, epollWaits)
)

// WaitsForInput reports whether process pid sleeps until the terminal tty
// has input: none of its threads runs, and one sleeps in a terminal read,
// or in poll while the terminal is in non-canonical (line editor) mode.
func WaitsForInput(pid int, tty *os.File) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return false
	}
	reading, polling := false, false
	for _, task := range tasks {
		dir := fmt.Sprintf("/proc/%d/task/%s/", pid, task.Name())
		state, wchan := TaskState(dir+"stat"), readTrimmed(dir+"wchan")
		if state != 'S' {
			return false // running, in disk I/O, stopped or gone
		}
		reading = reading || hasAnyPrefix(wchan, ttyReadWaits)
		polling = polling || hasAnyPrefix(wchan, pollWaits)
	}
	return reading || (polling && lineEditorMode(tty))
}

// WaitsOnlyForInput is a stricter WaitsForInput, for when no prompt on
// the screen backs it up: pid waits for the terminal and for nothing
// else. Two of WaitsForInput's signals are ambiguous on their own:
//
//   - epoll: an event loop waits there alike while it awaits anything
//     (node's await of a timer), with the terminal left in non-canonical
//     mode, so it never counts here;
//   - wait_woken: a TCP socket's read sleeps there too, so it counts only
//     when the thread's system call (/proc/PID/task/TID/syscall) is a read
//     of the terminal. Where that file cannot be read (Yama's ptrace
//     scope), it does not count.
//
// poll or select with the terminal in non-canonical mode is a line editor
// reading (python's readline), as the terminal is canonical again while
// the REPL evaluates.
func WaitsOnlyForInput(pid int, tty *os.File) bool {
	if tty == nil {
		return false
	}
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return false
	}
	waiting := false
	for _, task := range tasks {
		dir := fmt.Sprintf("/proc/%d/task/%s/", pid, task.Name())
		state, wchan := TaskState(dir+"stat"), readTrimmed(dir+"wchan")
		if state != 'S' {
			return false
		}
		waiting = waiting ||
			hasAnyPrefix(wchan, selectWaits) && lineEditorMode(tty) ||
			hasAnyPrefix(wchan, ttyReadWaits) && readsFile(pid, dir+"syscall", tty.Name())
	}
	return waiting
}

// readsFile reports whether the thread whose syscall file is at path is
// in a read() of the file file, one of process pid's.
func readsFile(pid int, path, file string) bool {
	fields := strings.Fields(readTrimmed(path))
	if len(fields) < 2 || fields[0] != strconv.Itoa(unix.SYS_READ) {
		return false
	}
	fd, err := strconv.ParseUint(strings.TrimPrefix(fields[1], "0x"), 16, 31)
	if err != nil {
		return false
	}
	link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd))
	return err == nil && link == file
}

// TaskState is the state letter of /proc/.../stat, 0 when unreadable.
func TaskState(path string) byte {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	// The command name may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}

func readTrimmed(path string) string {
	b, _ := os.ReadFile(path)
	return strings.TrimSpace(string(b))
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// lineEditorMode reports whether the terminal is in non-canonical mode,
// as line editors (readline, libedit, node's) set it while they read.
func lineEditorMode(tty *os.File) bool {
	if tty == nil {
		return false
	}
	t, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	return err == nil && t.Lflag&unix.ICANON == 0
}

// OpenTTY opens the pane's terminal to read its mode: never as our
// controlling terminal, never blocking.
func OpenTTY(path string) *os.File {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	return f
}

// TTYOf is the terminal of process pid: the first of its standard files
// that is one. Standard input alone is not enough: while a shell runs a
// builtin with redirections (ptysend's "eval ... <fifo 2>file"), the shell
// itself holds those files on 0 and 2.
func TTYOf(pid int) string {
	for fd := range 3 {
		p, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd))
		if err == nil && (strings.HasPrefix(p, "/dev/pts/") || strings.HasPrefix(p, "/dev/tty")) {
			return p
		}
	}
	return ""
}
