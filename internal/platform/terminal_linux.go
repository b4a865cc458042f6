package platform

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// TypedAhead reports keys the human typed that the shell has not read yet:
// they wait in the terminal's input queue, typed during the previous
// command, and appear on the line only once the shell reads them.
func TypedAhead(shellPID int) bool {
	tty := OpenTTY(TTYOf(shellPID))
	if tty == nil {
		return false
	}
	defer tty.Close()
	n, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ)
	return err == nil && n > 0
}

// isTerminalPath: a pseudo-terminal, or /dev/tty, which names the
// controlling terminal of whoever opens it.
func isTerminalPath(p string) bool {
	return strings.HasPrefix(p, "/dev/pts/") || strings.HasPrefix(p, "/dev/tty")
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
