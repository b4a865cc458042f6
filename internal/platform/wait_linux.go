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

func taskState(taskDir string) byte {
	p, _ := readStat(taskDir + "stat")
	return p.State
}

func readTrimmed(path string) string {
	b, _ := readProcFile(path)
	return strings.TrimSpace(string(b))
}

func hasAnyPrefix(s string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(s, p) })
}

// isTerminalPath: a pseudo-terminal, or /dev/tty (whoever opens it).
func isTerminalPath(p string) bool {
	return strings.HasPrefix(p, "/dev/pts/") || strings.HasPrefix(p, "/dev/tty")
}

// termMode reads the mode of tty; ok is false for no terminal.
func termMode(tty *os.File) (canonical, echo, onlcr, ok bool) {
	if tty == nil {
		return
	}
	t, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		return
	}
	canonical, echo = t.Lflag&unix.ICANON != 0, t.Lflag&unix.ECHO != 0
	return canonical, echo, t.Oflag&unix.OPOST != 0 && t.Oflag&unix.ONLCR != 0, true
}

// SetForegroundGroup makes pgid the foreground group of our terminal tty.
func SetForegroundGroup(tty *os.File, pgid int) error {
	return unix.IoctlSetPointerInt(int(tty.Fd()), unix.TIOCSPGRP, pgid)
}

// OpenTTY opens a terminal to read its mode, never as our controlling terminal; nil if it cannot.
func OpenTTY(path string) *os.File {
	f, _ := openUnpolled(path, unix.O_RDONLY)
	return f
}

// OpenTTYToWrite is OpenTTY to write; writes wait while the human holds output (Ctrl-S).
func OpenTTYToWrite(path string) (*os.File, error) {
	return openUnpolled(path, unix.O_WRONLY)
}

// openUnpolled opens without waiting and out of the poller, which would wake us at each byte shown.
func openUnpolled(path string, flags int) (*os.File, error) {
	fd, err := unix.Open(path, flags|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	unix.SetNonblock(fd, false)
	return os.NewFile(uintptr(fd), path), nil
}

// OpenTTYToWriteNoWait is OpenTTYToWrite, failing rather than waiting.
func OpenTTYToWriteNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
}

// TTYOf is the terminal of process pid: its controlling terminal, else the
// first standard file that is one, but /dev/tty (ours, when we open it).
// Not just stdin: a shell running "eval ... <fifo 2<>fifo" has fifos on 0, 2.
// Columns is the width of the terminal at path, 0 when unknown.
func Columns(path string) int {
	f, err := openUnpolled(path, unix.O_RDONLY)
	if err != nil {
		return 0
	}
	defer f.Close()
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}

// FlushInput discards what waits unread in the input of the terminal at path.
func FlushInput(path string) {
	if f, err := openUnpolled(path, unix.O_RDONLY); err == nil {
		unix.IoctlSetInt(int(f.Fd()), unix.TCFLSH, unix.TCIFLUSH)
		f.Close()
	}
}

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

func controllingPTY(pid int) string {
	p, _ := ReadProc(pid)
	dev := uint64(p.TTY)
	major := unix.Major(dev)
	const ptsMajor = 136 // UNIX98 pseudo-terminals: 136 to 143
	if p.TTY <= 0 || major < ptsMajor || major > ptsMajor+7 {
		return ""
	}
	path := fmt.Sprintf("/dev/pts/%d", (major-ptsMajor)<<8+unix.Minor(dev))
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil || st.Rdev != dev {
		return ""
	}
	return path
}
