package human

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// Screen is the shared pane as the human sees it: its visible rows as
// text (a full-screen program's alternate screen when it is on), the
// cursor and the size, counted from 1 as a terminal's cursor addressing.
type Screen struct {
	Rows      []string `json:"rows"`
	CursorRow int      `json:"cursor_row"`
	CursorCol int      `json:"cursor_col"`
	Width     int      `json:"width"`
	Height    int      `json:"height"`
	// AlternateScreen: a full-screen program (editor, pager, TUI) drew it.
	AlternateScreen bool `json:"alternate_screen"`
	// CopyMode: the human is scrolling back; the rows are the screen
	// below their scrolled view.
	CopyMode bool `json:"copy_mode"`
}

// ReadScreen reads the shared pane's screen with one tmux call (two when
// another pane of the session is the active one), whatever it is doing.
func ReadScreen(b bridge.Bridge) (Screen, error) {
	c, err := tmux.Capture(tmux.SessionTarget(b.Name))
	if err == nil && c.Session != b.Name {
		return Screen{}, &failure.Error{Verbatim: bridge.NoBridgeMessage}
	}
	if err == nil && c.Shared != "" && c.Shared != c.Pane {
		c, err = tmux.Capture(c.Shared)
	}
	if err != nil {
		return Screen{}, noBridgeOr(err)
	}
	return screenOf(c), nil
}

// ReadPane reads the screen of a pane (a job's window).
func ReadPane(pane string) (Screen, error) {
	c, err := tmux.Capture(pane)
	return screenOf(c), err
}

// screenOf is a capture as the human sees it. A cursor past the last
// column (after a write there) shows at the last.
func screenOf(c tmux.Screen) Screen {
	return Screen{Rows: c.Rows, CursorRow: c.CursorY + 1, CursorCol: min(c.CursorX+1, max(c.Width, 1)), Width: c.Width, Height: c.Height,
		AlternateScreen: c.Alternate, CopyMode: c.InMode}
}

// Text is the screen's rows, one a line, without the blank rows below
// both the last text and the cursor.
func (s Screen) Text() string {
	last := s.CursorRow
	for i, r := range s.Rows {
		if strings.TrimSpace(r) != "" {
			last = max(last, i+1)
		}
	}
	last = min(last, len(s.Rows))
	if last == 0 {
		return ""
	}
	return strings.Join(s.Rows[:last], "\n") + "\n"
}

// CursorLine says where the cursor is, and what kind of screen it is on.
func (s Screen) CursorLine() string {
	line := fmt.Sprintf("cursor at row %d, column %d (of %d x %d)", s.CursorRow, s.CursorCol, s.Width, s.Height)
	if s.AlternateScreen {
		line += "; a full-screen program's screen (alternate screen)"
	}
	if s.CopyMode {
		line += "; the user is scrolling back (copy mode)"
	}
	return line
}

// noBridgeOr makes tmux's "no such session or server" the no-bridge
// message.
func noBridgeOr(err error) error {
	if tmux.IsMissingSession(err) || errors.Is(err, tmux.ErrNoTmux) {
		return &failure.Error{Verbatim: bridge.NoBridgeMessage}
	}
	return failure.From(err)
}
