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
	if err != nil || fg <= 0 {
		return false
	}
	tty := platform.OpenTTY(platform.TTYOf(panePID))
	if tty == nil {
		return false
	}
	defer tty.Close()
	return platform.WaitsForInput(fg, tty)
}

// WhatTheTerminalAsks is the text of the cursor line: the question the
// human is to answer.
func WhatTheTerminalAsks(pane string) string {
	line, _, _, err := tmux.CursorLine(pane)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(line)
}
