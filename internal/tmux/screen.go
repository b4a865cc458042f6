package tmux

import (
	"fmt"
	"strings"
)

// Screen is what the human sees around the cursor of a pane.
type Screen struct {
	Line      string // the cursor line, trailing blanks trimmed
	Col       int    // the cursor column
	Width     int    // the pane's width
	InMode    bool   // a mode (copy mode) is on
	Alternate bool   // the alternate screen is on (a full-screen program)
}

// ScreenOf reads the pane's cursor line and modes in one tmux call.
func ScreenOf(pane string) (Screen, error) {
	out, err := Run("display-message", "-p", "-t", pane, "#{pane_in_mode} #{alternate_on} #{cursor_x} #{cursor_y} #{pane_width}",
		";", "capture-pane", "-p", "-t", pane)
	if err != nil {
		return Screen{}, err
	}
	rows := strings.Split(out, "\n")
	var mode, alt, y int
	var s Screen
	if _, err := fmt.Sscanf(rows[0], "%d %d %d %d %d", &mode, &alt, &s.Col, &y, &s.Width); err != nil {
		return Screen{}, fmt.Errorf("unexpected answer from tmux: %q", rows[0])
	}
	if y+1 < len(rows) {
		s.Line = strings.TrimRight(rows[y+1], " ")
	}
	s.InMode, s.Alternate = mode != 0, alt != 0
	return s, nil
}
