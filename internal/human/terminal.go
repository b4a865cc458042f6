package human

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// Screen is the shared pane as the human sees it, counted from 1 as a terminal's cursor is.
type Screen struct {
	Rows            []string `json:"rows" jsonschema:"the screen's rows as text, top to bottom"`
	CursorRow       int      `json:"cursor_row" jsonschema:"the cursor's row, from 1"`
	CursorCol       int      `json:"cursor_col" jsonschema:"the cursor's column, from 1"`
	Width           int      `json:"width"`
	Height          int      `json:"height"`
	AlternateScreen bool     `json:"alternate_screen" jsonschema:"a full-screen program (an editor, a pager, top) shows"`
	// CopyMode: the rows are the screen below the human's scrolled view.
	CopyMode bool `json:"copy_mode" jsonschema:"the user scrolls back in copy mode"`
	// StatusMessage is the message of --notify on tmux's message line, while its time lasts (a
	// key the user presses there may clear it sooner).
	StatusMessage string `json:"status_message,omitempty"`
}

// ReadScreen reads the shared pane's screen with one tmux call (two when another pane is active).
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
	s := screenOf(c)
	s.StatusMessage = shownNotice(b, time.Now())
	return s, nil
}

func ReadPane(pane string) (Screen, error) {
	c, err := tmux.Capture(pane)
	return screenOf(c), err
}

// screenOf: a cursor past the last column (after a write there) shows at the last.
func screenOf(c tmux.Screen) Screen {
	return Screen{Rows: c.Rows, CursorRow: c.CursorY + 1, CursorCol: min(c.CursorX+1, max(c.Width, 1)), Width: c.Width, Height: c.Height,
		AlternateScreen: c.Alternate, CopyMode: c.InMode}
}

// Text is the rows without the blank ones below the text and the cursor.
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

func noBridgeOr(err error) error {
	if tmux.IsMissingSession(err) || errors.Is(err, tmux.ErrNoTmux) {
		return &failure.Error{Verbatim: bridge.NoBridgeMessage}
	}
	return failure.From(err)
}

// NoticeTime is how long a notice stays on the human's message line. A
// key clears it sooner: tmux's -N, which would keep it, swallows keys.
const NoticeTime = 10 * time.Second

const Speaker = "[agent] "

type client struct {
	name, tty     string
	width, height int
	activity      int64 // the time of its last key, in seconds
}

func clients(b bridge.Bridge, none *failure.Error) ([]client, error) {
	out, err := tmux.Run("list-clients", "-t", tmux.SessionTarget(b.Name), "-F",
		"#{client_name}\t#{client_tty}\t#{client_control_mode}\t#{client_width}\t#{client_height}\t#{client_activity}")
	if err != nil {
		return nil, noBridgeOr(err)
	}
	if cs := parseClients(out); len(cs) > 0 {
		return cs, nil
	}
	return nil, none
}

// parseClients: control-mode clients (tmux integrations, scripts) draw no status line nor popup.
func parseClients(out string) []client {
	var cs []client
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 6 || f[2] == "1" {
			continue
		}
		c := client{name: f[0], tty: f[1]}
		c.width, _ = strconv.Atoi(f[3])
		c.height, _ = strconv.Atoi(f[4])
		c.activity, _ = strconv.ParseInt(f[5], 10, 64)
		cs = append(cs, c)
	}
	return cs
}

func mostRecent(cs []client) client {
	return slices.MaxFunc(cs, func(a, b client) int { return cmp.Compare(a.activity, b.activity) })
}

// Notify returns how many terminals show message.
func Notify(b bridge.Bridge, message string) (int, error) {
	cs, err := clients(b, &failure.Error{
		Msg:  "no terminal of the user's is attached to the bridge session, so there is nobody to show it to",
		Hint: "ask the user to open the shared terminal: run ptybridge in a terminal window",
	})
	if err != nil {
		return 0, err
	}
	text, ms := noticeText(message), strconv.Itoa(int(NoticeTime/time.Millisecond))
	var args []string
	for _, c := range cs {
		args = append(args, "display-message", "-d", ms, "-c", c.name, text, ";")
	}
	if _, err := tmux.Run(args[:len(args)-1]...); err != nil {
		return 0, noBridgeOr(err)
	}
	for _, c := range cs {
		ringBell(c.tty)
	}
	notice, _ := json.Marshal(noticeRecord{Text: noticeShown(message), Until: time.Now().Add(NoticeTime)})
	os.WriteFile(b.File(".notice"), notice, 0o600)
	return len(cs), nil
}

// noticeRecord is the last notice, kept for --screen: tmux says nothing of its message line.
type noticeRecord struct {
	Text  string    `json:"text"`
	Until time.Time `json:"until"`
}

// shownNotice is the last notice's text while it shows on the human's message line.
func shownNotice(b bridge.Bridge, now time.Time) string {
	var r noticeRecord
	if data, err := os.ReadFile(b.File(".notice")); err != nil || json.Unmarshal(data, &r) != nil || now.After(r.Until) {
		return ""
	}
	return r.Text
}

// noticeShown is the notice as the human's message line shows it: one line.
func noticeShown(message string) string {
	blank := func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }
	return Speaker + strings.Join(strings.FieldsFunc(message, blank), " ")
}

// noticeText: tmux expands formats ("#{...}") in a message and takes a final ";" for a separator.
func noticeText(message string) string {
	text := strings.ReplaceAll(noticeShown(message), "#", "##")
	if strings.HasSuffix(text, ";") {
		text = strings.TrimSuffix(text, ";") + `\;`
	}
	return text
}

// ringBell writes a BEL to the human's terminal itself: no input to the pane.
func ringBell(tty string) {
	if !strings.HasPrefix(tty, "/dev/") {
		return
	}
	f, err := platform.OpenTTYToWriteNoWait(tty)
	if err != nil {
		return
	}
	f.WriteString("\a")
	f.Close()
}
