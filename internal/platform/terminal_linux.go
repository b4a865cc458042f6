package platform

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// isTerminalPath: a pseudo-terminal, or /dev/tty, which names the
// controlling terminal of whoever opens it.
func isTerminalPath(p string) bool {
	return strings.HasPrefix(p, "/dev/pts/") || strings.HasPrefix(p, "/dev/tty")
}

// readTermMode reads the mode of the terminal tty; false for no terminal.
func readTermMode(tty *os.File) (termMode, bool) {
	if tty == nil {
		return termMode{}, false
	}
	t, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		return termMode{}, false
	}
	return termMode{
		canonical:          t.Lflag&unix.ICANON != 0,
		echo:               t.Lflag&unix.ECHO != 0,
		translatesNewlines: t.Oflag&unix.OPOST != 0 && t.Oflag&unix.ONLCR != 0,
	}, true
}

// SetForegroundGroup makes process group pgid the foreground one of the
// terminal tty, which must be our controlling terminal.
func SetForegroundGroup(tty *os.File, pgid int) error {
	return unix.IoctlSetPointerInt(int(tty.Fd()), unix.TIOCSPGRP, pgid)
}

// OpenTTY opens the pane's terminal to read its mode, never as our
// controlling terminal; nil when it cannot.
func OpenTTY(path string) *os.File {
	f, _ := openUnpolled(path, unix.O_RDONLY)
	return f
}

// OpenTTYToWrite opens the terminal at path to write to it, never as our
// controlling terminal. Its writes wait while the terminal takes no
// output (the human pressed Ctrl-S).
func OpenTTYToWrite(path string) (*os.File, error) {
	return openUnpolled(path, unix.O_WRONLY)
}

// openUnpolled opens a terminal as a file that Go's poller leaves alone,
// unlike os.OpenFile: there a terminal wakes the process at every byte
// the pane prints, for a file only asked about or written to.
func openUnpolled(path string, flags int) (*os.File, error) {
	fd, err := unix.Open(path, flags|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	unix.SetNonblock(fd, false)
	return os.NewFile(uintptr(fd), path), nil
}

// OpenTTYToWriteNoWait is OpenTTYToWrite for a write that must never
// wait: one that cannot be made at once fails.
func OpenTTYToWriteNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
}

// TTYOf is the terminal of process pid: its controlling terminal, else
// the first of its standard files that is a terminal. Standard input
// alone is not enough: while a shell runs a builtin with redirections
// (ptysend's "eval ... <fifo 2<>fifo") it holds those files on 0 and 2;
// and a command's "</dev/tty" puts the alias /dev/tty there, which we
// would open as our own terminal, not the pane's.
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
// terminal (Proc.TTY), or "".
func controllingPTY(pid int) string {
	p, _ := ReadProc(pid)
	if p.TTY <= 0 {
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
