package pane

import (
	"strings"

	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// WaitsForHuman reports whether the foreground program of the pane sleeps
// until the terminal has input (a password prompt, a [y/N] question, a
// full-screen program waiting for a key): it is waiting for the human,
// not hung, so the no-output timeout must not kill it.
func WaitsForHuman(panePID int) bool {
	fg, err := platform.ForegroundPID(panePID)
	return err == nil && fg > 0 && waitsForInput(fg, platform.TTYOf(panePID), false)
}

// waitsForInput reports whether pid sleeps until the terminal tty has
// input; with lineEditor, in a line editor's mode too.
func waitsForInput(pid int, tty string, lineEditor bool) bool {
	f := platform.OpenTTY(tty)
	if f == nil {
		return false
	}
	defer f.Close()
	return platform.WaitsForInput(pid, f) && (!lineEditor || platform.EditsLines(f))
}

// Asks is the text of the pane's cursor line: the question the human is
// to answer.
func Asks(paneID string) string {
	s, err := tmux.Capture(paneID)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(s.CursorLine())
}

// farAsks: a cursor line that asks the human something.
var farAsks = lazyRegexp(`[:?]\s*$`)

// FarAsks is what a far command asks the human, from the cursor line (the
// kernel does not see the far program): a password, a yes/no question, a
// line ending in ':' or '?'; "" when it asks nothing.
func FarAsks(paneID string) string {
	line := Asks(paneID)
	if line == "" || !(secretPrompt().MatchString(line) || farAsks().MatchString(line)) {
		return ""
	}
	return line
}
