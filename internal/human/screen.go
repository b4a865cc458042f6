package human

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// Screen is the shared pane as the human sees it: its visible rows as
// text (the alternate screen of a full-screen program when it is on), the
// cursor, and the size. Rows and columns are counted from 1, as a
// terminal's own cursor addressing does.
type Screen struct {
	Rows      []string `json:"rows"`
	CursorRow int      `json:"cursor_row"`
	CursorCol int      `json:"cursor_col"`
	Width     int      `json:"width"`
	Height    int      `json:"height"`
	// AlternateScreen: a full-screen program (an editor, a pager, a TUI)
	// drew what the rows show.
	AlternateScreen bool `json:"alternate_screen"`
	// CopyMode: the human is scrolling back (tmux copy mode); the rows
	// are the screen below their scrolled view.
	CopyMode bool `json:"copy_mode"`
}

// screenFacts is what display-message tells before capture-pane's rows:
// the session (tmux 3.3a answers for another one when ours is gone), the
// shared pane and the one asked about, the cursor, the size, the modes.
const screenFacts = "#{session_name}\t#{@ptybridge_pane}\t#{pane_id}\t#{cursor_x}\t#{cursor_y}\t#{pane_width}\t#{pane_height}\t#{alternate_on}\t#{pane_in_mode}"

// ReadScreen reads the shared pane's screen with one tmux call (two when
// the human has made another pane of the session the active one). It
// never types and works whatever the pane is doing.
func ReadScreen(b bridge.Bridge) (Screen, error) {
	target := tmux.SessionTarget(b.Name)
	for range 2 {
		out, err := tmux.Run("display-message", "-p", "-t", target, screenFacts,
			";", "capture-pane", "-p", "-t", target)
		if err != nil {
			return Screen{}, noBridgeOr(err)
		}
		s, shared, err := parseScreen(out, b.Name)
		if err != nil {
			return Screen{}, err
		}
		if shared == "" || target == shared {
			return s, nil
		}
		target = shared
	}
	return Screen{}, errors.New("the shared pane of the bridge keeps changing")
}

// parseScreen reads the answer of the call in ReadScreen. shared is the
// bridge's own pane when the answer is about another one ("" when it is
// the same or unknown).
func parseScreen(out, session string) (s Screen, shared string, err error) {
	head, rows, _ := strings.Cut(out, "\n")
	f := strings.Split(head, "\t")
	if len(f) != 9 {
		return Screen{}, "", fmt.Errorf("unexpected answer from tmux: %q", head)
	}
	if f[0] != session {
		return Screen{}, "", &failure.Error{Verbatim: bridge.NoBridgeMessage}
	}
	if f[1] != "" && f[1] != f[2] {
		return Screen{}, f[1], nil
	}
	var n [4]int
	for i := range n {
		if n[i], err = strconv.Atoi(f[3+i]); err != nil {
			return Screen{}, "", fmt.Errorf("unexpected answer from tmux: %q", head)
		}
	}
	s = Screen{CursorCol: n[0] + 1, CursorRow: n[1] + 1, Width: n[2], Height: n[3],
		AlternateScreen: f[7] == "1", CopyMode: f[8] == "1"}
	s.Rows = strings.Split(strings.TrimSuffix(rows, "\n"), "\n")
	for len(s.Rows) < s.Height {
		s.Rows = append(s.Rows, "")
	}
	return s, "", nil
}

// Text is the screen for reading: its rows, one a line, without the
// blank rows below both the last text and the cursor.
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

// noBridgeOr turns tmux saying that the session or its server does not
// exist into the no-bridge message.
func noBridgeOr(err error) error {
	if tmux.IsMissingSession(err) || errors.Is(err, tmux.ErrNoTmux) {
		return &failure.Error{Verbatim: bridge.NoBridgeMessage}
	}
	return failure.From(err)
}
