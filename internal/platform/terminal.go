package platform

import "os"

// EditsLines reports whether a line editor (readline, zle, fish, node)
// reads the terminal: it is non-canonical.
func EditsLines(tty *os.File) bool {
	canonical, _, _, ok := termMode(tty)
	return ok && !canonical
}

// passwordMode: lines read without echo, as getpass, sudo and su ask.
func passwordMode(tty *os.File) bool {
	canonical, echo, _, ok := termMode(tty)
	return ok && canonical && !echo
}

// TranslatesNewlines reports whether tty's output turns "\n" into "\r\n",
// as by default.
func TranslatesNewlines(tty *os.File) bool {
	_, _, onlcr, ok := termMode(tty)
	return !ok || onlcr
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
