package session

import "strings"

// waitsForHuman reports whether the foreground program of the pane sleeps
// until the terminal has input (a password prompt, a [y/N] question, a
// full-screen program waiting for a key): it is waiting for the human,
// not hung, so the no-output timeout must not kill it.
func waitsForHuman(panePID int) bool {
	fg, err := ForegroundPID(panePID)
	if err != nil || fg <= 0 {
		return false
	}
	tty := openTTY(ttyOf(panePID))
	if tty == nil {
		return false
	}
	defer tty.Close()
	return waitsForInput(fg, tty)
}

// whatTheTerminalAsks is the text of the cursor line: the question the
// human is to answer.
func whatTheTerminalAsks(pane string) string {
	line, _, _, err := cursorLine(pane)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(line)
}
