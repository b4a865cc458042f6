package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Seeing the human's terminal and talking to them: --screen, --notify.

// lessFile writes a file of numbered lines for the human to read in less.
func (b *bridge) lessFile() string {
	b.t.Helper()
	var text strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&text, "line-of-the-file-%d\n", i)
	}
	path := filepath.Join(b.dir, "notes.txt")
	must(b.t, os.WriteFile(path, []byte(text.String()), 0o600))
	return path
}

func TestTheAgentSeesLessAndIsRefused(t *testing.T) {
	b := integrated(t)
	human := b.terms[0]
	human.typeKeys("less " + b.lessFile() + "\r")
	b.waitFor("less to show the file", func() bool {
		return b.paneCommand() == "less" && strings.Contains(b.paneText(), "line-of-the-file-1\n")
	})

	r := b.send("--screen")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "line-of-the-file-1\nline-of-the-file-2\n") ||
		!strings.Contains(r.stderr, "ptysend: cursor at row 39, column") || !strings.Contains(r.stderr, "(of 120 x 39)") ||
		!strings.Contains(r.stderr, "alternate screen") {
		t.Fatalf("--screen must show less's text and the cursor on its last row:\n%v", r)
	}

	r = b.send("--", "true")
	if r.code != 75 || !strings.Contains(r.stderr, `"less"`) || !strings.Contains(r.stderr, "hint: ask the user") {
		t.Fatalf("want exit 75 naming less:\n%v", r)
	}
}

func TestScreenShowsAHalfTypedLineAsJSON(t *testing.T) {
	b := integrated(t)
	b.terms[0].typeKeys("echo 'two  spaces'")
	b.waitFor("the human's keys to show", func() bool { return strings.Contains(b.paneText(), "echo 'two  spaces'") })
	r := b.send("--screen", "--json")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("--screen --json:\n%v", r)
	}
	var s struct {
		Rows            []string `json:"rows"`
		CursorRow       int      `json:"cursor_row"`
		CursorCol       int      `json:"cursor_col"`
		Width           int      `json:"width"`
		Height          int      `json:"height"`
		AlternateScreen bool     `json:"alternate_screen"`
		CopyMode        bool     `json:"copy_mode"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, r.stdout)
	}
	if s.Width != 120 || s.Height != 39 || len(s.Rows) != s.Height || s.AlternateScreen || s.CopyMode {
		t.Fatalf("want the 120 x 39 pane, its 39 rows, no alternate screen, no copy mode: %+v", s)
	}
	line := s.Rows[s.CursorRow-1]
	if !strings.HasSuffix(line, "echo 'two  spaces'") || s.CursorCol != len([]rune(line))+1 {
		t.Fatalf("the cursor must be just after the half-typed line; row %d col %d is in %q", s.CursorRow, s.CursorCol, line)
	}
	if r := b.send("--json", "--", "true"); r.code != 125 || !strings.Contains(r.stderr, "--json goes with --screen") {
		t.Fatalf("--json with a command:\n%v", r)
	}
}

func TestScreenAndNotifyWithoutABridge(t *testing.T) {
	b := newWorld(t)
	for _, args := range [][]string{{"--screen"}, {"--notify", "hello"}} {
		if r := b.send(args...); r.code != 125 || !strings.Contains(r.stderr, "No PTY bridge session is running") {
			t.Errorf("ptysend %q without a bridge:\n%v", args, r)
		}
	}
}

func TestNotifyShowsTheMessageWithoutTypingIt(t *testing.T) {
	b := integrated(t)
	human := b.terms[0]
	human.typeKeys("less " + b.lessFile() + "\r")
	b.waitFor("less to run", func() bool { return b.paneCommand() == "less" })
	before := len(human.screen())
	r := b.send("--notify", "please quit less #1, I want to run the tests;")
	if r.code != 0 || !strings.Contains(r.stderr, "shown to the user in 1 terminal") {
		t.Fatalf("--notify:\n%v", r)
	}
	b.waitFor("the message on the human's screen", func() bool {
		return strings.Contains(human.screen()[before:], "[agent] please quit less #1, I want to run the tests;")
	})
	if !strings.Contains(human.screen()[before:], "\a") {
		t.Fatal("the human's terminal must ring its bell")
	}
	if b.paneCommand() != "less" || strings.Contains(b.paneText(), "please quit") {
		t.Fatalf("nothing may be typed into less:\n%s", b.paneText())
	}
	if r := b.send("--notify", "  "); r.code != 125 || !strings.Contains(r.stderr, "--notify needs a message") {
		t.Fatalf("an empty message:\n%v", r)
	}
}
