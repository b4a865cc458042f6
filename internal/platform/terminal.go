package platform

import "os"

type termMode struct {
	canonical          bool // it reads whole lines: no line editor reads it now
	echo               bool // it shows what is typed
	translatesNewlines bool // its output turns "\n" into "\r\n"
}

// EditsLines reports whether a line editor (readline, zle, fish, node)
// reads the terminal: it is non-canonical.
func EditsLines(tty *os.File) bool {
	m, ok := readTermMode(tty)
	return ok && !m.canonical
}

// passwordMode: lines read without echo, as getpass, sudo and su ask.
func passwordMode(tty *os.File) bool {
	m, ok := readTermMode(tty)
	return ok && m.canonical && !m.echo
}

// TranslatesNewlines reports whether tty's output turns "\n" into "\r\n",
// as by default.
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
