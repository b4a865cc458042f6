package platform

import "os"

type termMode struct {
	canonical          bool // it reads whole lines: no line editor reads it now
	echo               bool // it shows what is typed
	translatesNewlines bool // its output turns "\n" into "\r\n"
}

// EditsLines reports whether the terminal is in a line editor's mode
// (non-canonical), as readline, libedit, zle, fish and node set it while
// they read a line; a builtin read leaves it canonical.
func EditsLines(tty *os.File) bool {
	m, ok := readTermMode(tty)
	return ok && !m.canonical
}

// passwordMode reports whether the terminal reads lines without echoing
// them, as getpass, sudo and su set it while they ask for a password.
func passwordMode(tty *os.File) bool {
	m, ok := readTermMode(tty)
	return ok && m.canonical && !m.echo
}

// TranslatesNewlines reports whether the terminal tty turns "\n" into
// "\r\n" in its output, as terminals do by default (and when it does not
// say).
func TranslatesNewlines(tty *os.File) bool {
	m, ok := readTermMode(tty)
	return !ok || m.translatesNewlines
}

// TypedAhead reports keys the human typed during the previous command,
// which wait in the terminal's input queue: they appear on the line only
// once the shell reads them.
func TypedAhead(shellPID int) bool {
	tty := OpenTTY(TTYOf(shellPID))
	if tty == nil {
		return false
	}
	defer tty.Close()
	return Unread(tty) > 0
}
