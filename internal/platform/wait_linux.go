package platform

import (
	"errors"
	"fmt"
	"io/fs"
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
// has input: none of its threads runs, and one sleeps in a read of a
// terminal, or in poll while the terminal is in non-canonical (line
// editor) mode.
//
// The kernel hides the wait channel (it reads "0", and its system call
// cannot be read) of a process we may not trace: a set-uid program such as
// sudo or su, which asks for a password. Such a process waits for the
// human when it sleeps while the terminal is in the mode of a password
// prompt: canonical, echo off.
func WaitsForInput(pid int, tty *os.File) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return false
	}
	reading, polling, hidden := false, false, false
	for _, task := range tasks {
		dir := fmt.Sprintf("/proc/%d/task/%s/", pid, task.Name())
		state, wchan := taskState(dir), readTrimmed(dir+"wchan")
		if state != 'S' {
			return false // running, in disk I/O, stopped or gone
		}
		switch {
		case wchan == "0":
			if _, hid := syscallOf(dir); !hid {
				return false // not hidden: it runs again by now, or is gone
			}
			hidden = true
		case hasAnyPrefix(wchan, ttyReadWaits):
			reading = reading || readsTerminal(pid, dir)
		case hasAnyPrefix(wchan, pollWaits):
			polling = true
		}
	}
	return reading || (polling && lineEditorMode(tty)) || (hidden && passwordMode(tty))
}

// readsTerminal reports whether the task sleeping in wait_woken is in a
// read() of a terminal: the same wait channel serves a write() to a
// terminal whose output is full (a command printing fast) and a read of a
// TCP socket, which are no question to the human. When /proc hides the
// system call from us, the wait channel is trusted; a task that runs
// again by now ("running") waits for nothing, nor does one that is gone:
// a command blocked in its last write() to a full terminal can finish it,
// exit and be reaped between the read of its wait channel and this one.
func readsTerminal(pid int, taskDir string) bool {
	syscall, hidden := syscallOf(taskDir)
	if hidden {
		return true
	}
	fields := strings.Fields(syscall)
	if len(fields) < 2 {
		return false
	}
	nr, err1 := strconv.Atoi(fields[0])
	fd, err2 := strconv.ParseInt(strings.TrimPrefix(fields[1], "0x"), 16, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	switch nr {
	case unix.SYS_READ, unix.SYS_READV, unix.SYS_PREAD64:
		target, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd))
		return err != nil || isTerminalPath(target)
	}
	return false
}

// syscallOf is the system call of the task at taskDir as /proc shows it
// ("running" for one that runs), or "" when it cannot be read. hidden
// says that the kernel hides it from us (a process we may not trace: a
// set-uid program, or Yama's ptrace scope); a task that is gone hides
// nothing.
func syscallOf(taskDir string) (syscall string, hidden bool) {
	b, err := os.ReadFile(taskDir + "syscall")
	if err != nil {
		return "", errors.Is(err, fs.ErrPermission)
	}
	return strings.TrimSpace(string(b)), false
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
		state, wchan := taskState(dir), readTrimmed(dir+"wchan")
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

// taskState is the state letter of the task (or process) at taskDir in
// /proc, 0 when unreadable.
func taskState(taskDir string) byte {
	p, err := readStat(taskDir + "stat")
	if err != nil {
		return 0
	}
	return p.State
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

// AtLineEditor reports whether the shell waits for keys in its line
// editor: asleep in poll or select with the terminal in non-canonical
// mode. A loop of builtins runs; a builtin read sleeps in a cooked read.
func AtLineEditor(shellPID int) bool {
	tty := OpenTTY(TTYOf(shellPID))
	if tty == nil {
		return false
	}
	defer tty.Close()
	wchan := readTrimmed(fmt.Sprintf("/proc/%d/wchan", shellPID))
	return taskState(fmt.Sprintf("/proc/%d/", shellPID)) == 'S' &&
		hasAnyPrefix(wchan, pollWaits) && lineEditorMode(tty)
}
