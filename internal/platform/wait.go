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

// isTerminalPath: a pseudo-terminal, or /dev/tty, which names the
// controlling terminal of whoever opens it.
func isTerminalPath(p string) bool {
	return strings.HasPrefix(p, "/dev/pts/") || strings.HasPrefix(p, "/dev/tty")
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

// lineEditorMode reports whether the terminal is in non-canonical mode,
// as line editors (readline, libedit, node's) set it while they read.
func lineEditorMode(tty *os.File) bool {
	t := termios(tty)
	return t != nil && t.Lflag&unix.ICANON == 0
}

// passwordMode reports whether the terminal reads lines without echoing
// them, as getpass, sudo and su set it while they ask for a password.
func passwordMode(tty *os.File) bool {
	t := termios(tty)
	return t != nil && t.Lflag&unix.ICANON != 0 && t.Lflag&unix.ECHO == 0
}

func termios(tty *os.File) *unix.Termios {
	if tty == nil {
		return nil
	}
	t, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		return nil
	}
	return t
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

// TTYOf is the terminal of process pid: its controlling terminal (tty_nr
// in /proc/PID/stat), else the first of its standard files that is a
// terminal device. Standard input alone is not enough: while a shell runs
// a builtin with redirections (ptysend's "eval ... <fifo 2<>fifo"), the
// shell itself holds those files on 0 and 2; and a command's "</dev/tty"
// puts the alias /dev/tty there, which would name our own terminal, not
// the pane's, when opened by us.
func TTYOf(pid int) string {
	if p := controllingPTY(pid); p != "" {
		return p
	}
	for fd := range 3 {
		p, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd))
		if err == nil && p != "/dev/tty" && isTerminalPath(p) {
			return p
		}
	}
	return ""
}

// controllingPTY is the /dev/pts device that is pid's controlling
// terminal, or "". The kernel encodes the device number in tty_nr; the
// path is checked against it.
func controllingPTY(pid int) string {
	p, err := ReadProc(pid)
	if err != nil || p.TTY <= 0 {
		return ""
	}
	nr := uint64(p.TTY)
	major := (nr >> 8) & 0xfff
	minor := (nr & 0xff) | ((nr >> 12) & 0xfff00)
	const ptsMajor = 136 // UNIX98 pseudo-terminals: 136 to 143
	if major < ptsMajor || major > ptsMajor+7 {
		return ""
	}
	path := fmt.Sprintf("/dev/pts/%d", (major-ptsMajor)<<8+minor)
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil || st.Rdev != unix.Mkdev(uint32(major), uint32(minor)) {
		return ""
	}
	return path
}
