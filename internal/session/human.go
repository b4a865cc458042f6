package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// waitsForHuman reports whether the foreground program of the pane is
// blocked reading the terminal (a password prompt, a [y/N] question): its
// wait channel is the tty read's, and it has the pane's terminal open. Such
// a command is waiting for the human, not hung, so the no-output timeout
// must not kill it.
func waitsForHuman(panePID int) bool {
	fg, err := foregroundPID(panePID)
	if err != nil || fg <= 0 {
		return false
	}
	wchan, err := os.ReadFile(fmt.Sprintf("/proc/%d/wchan", fg))
	if err != nil || strings.TrimSpace(string(wchan)) != "wait_woken" {
		return false
	}
	tty, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/0", panePID))
	if err != nil {
		return false
	}
	fds, _ := filepath.Glob(fmt.Sprintf("/proc/%d/fd/*", fg))
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && target == tty {
			return true
		}
	}
	return false
}

// cursorLine is the text of the line the pane's cursor is on: what the
// terminal is asking the human.
func cursorLine(pane string) string {
	out, err := tmux("display-message", "-p", "-t", pane, "#{cursor_y}", ";", "capture-pane", "-p", "-t", pane)
	if err != nil {
		return ""
	}
	lines := strings.Split(out, "\n")
	y, err := strconv.Atoi(lines[0])
	if err != nil || y+1 >= len(lines) {
		return ""
	}
	return strings.TrimSpace(lines[y+1])
}
