package human

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

func TestScreenText(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Screen
		want string
	}{
		{"blank rows below the text and the cursor are left out",
			Screen{Rows: []string{"$ make", "ok", "$ ", "", ""}, CursorRow: 3}, "$ make\nok\n$ \n"},
		{"blank rows down to the cursor are kept",
			Screen{Rows: []string{"top", "", "", ""}, CursorRow: 3}, "top\n\n\n"},
		{"text below the cursor is kept",
			Screen{Rows: []string{"", "", "", "status"}, CursorRow: 1}, "\n\n\nstatus\n"},
		{"an empty screen", Screen{Rows: []string{"", ""}, CursorRow: 0}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := c.s.Text(); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestCursorLine(t *testing.T) {
	for _, c := range []struct {
		s    Screen
		want string
	}{
		{Screen{CursorRow: 3, CursorCol: 7, Width: 80, Height: 24}, "cursor at row 3, column 7 (of 80 x 24)"},
		{Screen{CursorRow: 24, CursorCol: 1, Width: 80, Height: 24, AlternateScreen: true},
			"cursor at row 24, column 1 (of 80 x 24); a full-screen program's screen (alternate screen)"},
		{Screen{CursorRow: 1, CursorCol: 1, Width: 80, Height: 24, CopyMode: true},
			"cursor at row 1, column 1 (of 80 x 24); the user is scrolling back (copy mode)"},
	} {
		if got := c.s.CursorLine(); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
}

func TestParseClientsAndTheMostRecent(t *testing.T) {
	out := "/dev/pts/3\t/dev/pts/3\t0\t120\t40\t1700000010\n" +
		"ctl\t\t1\t80\t24\t1700000099\n" + // a control-mode client: no status line, no popup
		"/dev/pts/7\t/dev/pts/7\t0\t80\t24\t1700000050\n" +
		"torn line\n"
	got := parseClients(out)
	want := []client{
		{name: "/dev/pts/3", tty: "/dev/pts/3", width: 120, height: 40, activity: 1700000010},
		{name: "/dev/pts/7", tty: "/dev/pts/7", width: 80, height: 24, activity: 1700000050},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if m := mostRecent(got); m.name != "/dev/pts/7" {
		t.Fatalf("the terminal used last is /dev/pts/7, got %s", m.name)
	}
	if len(parseClients("")) != 0 {
		t.Fatal("no clients")
	}
}

func TestNoticeText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"please quit less", "[agent] please quit less"},
		{"  two\nlines\tand\ttabs  ", "[agent] two lines and tabs"},
		{"#{pane_id} is #1", "[agent] ##{pane_id} is ##1"},
		{"done;", `[agent] done\;`},
		{"bell\a and escape \x1b[31m", "[agent] bell and escape [31m"},
	} {
		if got := noticeText(c.in); got != c.want {
			t.Errorf("noticeText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestKeyAnswer(t *testing.T) {
	for _, c := range []struct {
		key, want string
	}{
		{"y", yes}, {"Y", yes},
		{"n", no}, {"N", no}, {"q", no}, {"\x1b", no}, {"\x03", no}, {"\x04", no},
		{"\x1b[A", ""}, {"\x1bOP", ""}, {"\x1by", ""}, // an arrow, F1, Alt-y
		{"\r", ""}, {" ", ""}, {"x", ""}, {"", ""},
	} {
		if got := keyAnswer([]byte(c.key)); got != c.want {
			t.Errorf("keyAnswer(%q) = %q, want %q", c.key, got, c.want)
		}
	}
}

func TestLayout(t *testing.T) {
	q := Question{Action: "run this in the shared terminal", Text: "make test"}
	want := []string{"The agent wants to run this in the shared terminal:", "", "  make test", "", popupFooter}
	if got := layout(q, 60, 20); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q", got)
	}
	// Long lines wrap; too many lines are cut with a note.
	long := Question{Action: "run", Text: strings.Repeat("x", 40) + "\n" + strings.Repeat("l\n", 20)}
	got := layout(long, 30, 10)
	if len(got) != 10 || got[0] != "The agent wants to run:" || got[2] != "  "+strings.Repeat("x", 28) ||
		got[3] != "  "+strings.Repeat("x", 12) || got[6] != "  l" || got[7] != "  … (17 more lines)" || got[9] != popupFooter {
		t.Fatalf("got %q", got)
	}
}

func TestPopupSize(t *testing.T) {
	for _, c := range []struct {
		name   string
		q      Question
		cw, ch int
		w, h   int
	}{
		{"a short command: as wide as the question", Question{"run this in the shared terminal", "ls"}, 120, 40, 55, 7},
		{"a wide command", Question{"run", strings.Repeat("x", 70)}, 120, 40, 76, 7},
		{"wider than the terminal: wrapped", Question{"run", strings.Repeat("x", 200)}, 120, 40, 120, 8},
		{"taller than the terminal", Question{"run", strings.Repeat("l\n", 60)}, 120, 40, 37, 40},
	} {
		t.Run(c.name, func(t *testing.T) {
			if w, h := popupSize(c.q, c.cw, c.ch); w != c.w || h != c.h {
				t.Fatalf("got %d x %d, want %d x %d", w, h, c.w, c.h)
			}
		})
	}
}

func TestVerdict(t *testing.T) {
	dir := t.TempDir()
	q := Question{Action: "run", Text: "rm -rf build\necho done"}
	for _, c := range []struct {
		answer string // "" writes no answer: the popup closed
		code   int
		says   string
	}{
		{"yes\n", 0, ""},
		{"no\n", failure.ExitRefused, `the user refused to run it: "rm -rf build …"; nothing was typed`},
		{"", failure.ExitRefused, "closed the question without answering"},
	} {
		file := filepath.Join(dir, "q.ask")
		os.Remove(answerFile(file))
		if c.answer != "" {
			os.WriteFile(answerFile(file), []byte(c.answer), 0o600)
		}
		err := verdict(file, q)
		if c.code == 0 {
			if err != nil {
				t.Errorf("%q: want approval, got %v", c.answer, err)
			}
			continue
		}
		e := failure.From(err)
		if e.ExitCode() != c.code || !strings.Contains(e.Msg, c.says) || !strings.Contains(e.Hint, "ask the user why") {
			t.Errorf("%q: got %d %q %q", c.answer, e.ExitCode(), e.Msg, e.Hint)
		}
	}
}

// --screen shows the last notice while its time lasts on the human's message line, and then no more.
func TestTheNoticeShowsUntilItsTimeIsUp(t *testing.T) {
	b := bridge.Bridge{Name: "notice-test", RuntimeDir: t.TempDir()}
	if got := shownNotice(b, time.Now()); got != "" {
		t.Fatalf("no notice yet: got %q", got)
	}
	data, _ := json.Marshal(noticeRecord{Text: "[agent] quit less; please", Until: time.Now().Add(NoticeTime)})
	if err := os.WriteFile(b.File(".notice"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if got := shownNotice(b, time.Now()); got != "[agent] quit less; please" {
		t.Fatalf("while it shows: got %q", got)
	}
	if got := shownNotice(b, time.Now().Add(NoticeTime+time.Second)); got != "" {
		t.Fatalf("after its time: got %q", got)
	}
}

// After a write to the last column tmux puts the cursor one past it; the terminal shows it there.
func TestTheCursorIsNeverPastTheLastColumn(t *testing.T) {
	for _, c := range []struct{ x, width, want int }{{0, 160, 1}, {158, 160, 159}, {159, 160, 160}, {160, 160, 160}} {
		if got := screenOf(tmux.Screen{CursorX: c.x, Width: c.width, Height: 24}).CursorCol; got != c.want {
			t.Errorf("tmux's cursor_x %d of %d columns: column %d, want %d", c.x, c.width, got, c.want)
		}
	}
}
