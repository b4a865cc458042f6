package platform

import "os"

type termMode struct {
	canonical          bool // it reads whole lines: no line editor reads it now
	echo               bool // it shows what is typed
	translatesNewlines bool // its output turns "\n" into "\r\n"
}

// EditsLines reports whether the terminal is in a line editor's mode
// (non-canonical), as readline, zle, fish and node set it while they read
// a line; a builtin read leaves it canonical.
func EditsLines(tty *os.File) bool {
	m, ok := readTermMode(tty)
	return ok && !m.canonical
}

// passwordMode: lines read without echo, as getpass, sudo and su ask.
func passwordMode(tty *os.File) bool {
	m, ok := readTermMode(tty)
	return ok && m.canonical && !m.echo
}

// TranslatesNewlines reports whether the terminal tty turns "\n" into
// "\r\n" in its output, as by default.
func TranslatesNewlines(tty *os.File) bool {
	m, ok := readTermMode(tty)
	return !ok || m.translatesNewlines
}

// TypedAhead reports keys typed during the previous command that wait in
// the terminal's input queue, not yet on the shell's line.
func TypedAhead(shellPID int) bool {
	tty := OpenTTY(TTYOf(shellPID))
	if tty == nil {
		return false
	}
	defer tty.Close()
	return Unread(tty) > 0
}
