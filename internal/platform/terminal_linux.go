package platform

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

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

// OpenTTY opens the pane's terminal to read its mode, never as our
// controlling terminal; nil when it cannot.
func OpenTTY(path string) *os.File {
	f, _ := openUnpolled(path, unix.O_RDONLY)
	return f
}

// OpenTTYToWrite opens a terminal to write, never as our controlling
// terminal; writes wait while the human holds output (Ctrl-S).
func OpenTTYToWrite(path string) (*os.File, error) {
	return openUnpolled(path, unix.O_WRONLY)
}

// openUnpolled opens a terminal without waiting and out of Go's poller,
// where it would wake the process at every byte the pane prints.
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

// TTYOf is the terminal of process pid: its controlling terminal, else
// the first standard file that is one, but /dev/tty (ours, when we open
// it). Not just stdin: a shell running "eval ... <fifo 2<>fifo" holds
// fifos on 0 and 2.
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
