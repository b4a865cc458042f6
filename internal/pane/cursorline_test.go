package pane

import (
	"strings"
	"testing"

	"github.com/ptybridge/ptybridge/internal/tmux"
)

func TestTheCursorLineTellsAnEmptyPrompt(t *testing.T) {
	const width = 40
	right := func(left, rp string) string { return left + strings.Repeat(" ", width-len(left)-len(rp)) + rp }
	for _, c := range []struct {
		name, row   string
		x           int
		empty, asks bool
	}{
		{"bash's prompt", "user@host:~$ ", 13, true, false},
		{"root's prompt", "root@host:/tmp# ", 16, true, false},
		{"zsh's", "host% ", 6, true, false},
		{"fish's", "user@host ~> ", 13, true, false},
		{"a prompt with no space", "~$", 2, true, false},
		{"starship's", "❯ ", 2, true, false},
		{"a half-typed line", "user@host:~$ echo half", 22, false, false},
		{"a half-typed line, the cursor moved to its start", "user@host:~$ echo half", 13, false, false},
		{"a line ending as a prompt does", "user@host:~$ echo $", 19, true, false}, // what the screen cannot tell
		{"fish's right prompt", right("[0]> ", "[right 0]"), 5, true, false},
		{"typed text before a right prompt", right("[0]> echo", "[right 0]"), 9, false, false},
		{"typed text gone back over before a right prompt", right("[0]> echo", "[right 0]"), 5, false, false},
		{"text after the cursor not at the right edge", "$    later", 2, false, false},
		{"a continuation prompt", "> ", 2, false, false},
		{"python's prompt", ">>> ", 4, false, false},
		{"a prompt of another shape", "➜  work ", 8, false, false},
		{"a password question", "[sudo] password for user: ", 26, false, true},
		{"an empty line", "", 0, false, false},
	} {
		p := readCursorLine(tmux.Screen{Rows: []string{"above", c.row}, CursorX: c.x, CursorY: 1, Width: width, Height: 2})
		if p.emptyPrompt != c.empty || p.asks != c.asks {
			t.Errorf("%s (%q, cursor at %d): empty prompt %v, asks %v; want %v, %v", c.name, c.row, c.x, p.emptyPrompt, p.asks, c.empty, c.asks)
		}
	}
}
