// Package human is the agent's side of the conversation with the human at the shared terminal, none
// of it typed into the pane: the screen they see, a message in their terminals, and asking their
// approval before a command is typed (ptybridge --confirm).
package human

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/tmux"
	"golang.org/x/term"
)

// With --confirm, a tmux popup over the human's terminal runs a hidden mode of ptysend (AskFlag
// FILE) that reads one key. display-popup returns however the popup closes (the answer, the
// terminal gone, -C when ptysend gives up), so ptysend never waits for an answer that cannot come.
const AskFlag = "--confirm-ask"

type Question struct {
	// Action completes "The agent wants to ...": "run this in the shared terminal".
	Action string
	Text   string // the command or expression, as it would be typed
}

const (
	yes = "yes"
	no  = "no"
)

// Ask shows q in the terminal used last and waits up to limit (0: none): nil if the human says yes.
func Ask(ctx context.Context, b bridge.Bridge, q Question, limit time.Duration) error {
	cs, err := clients(b, &failure.Error{
		Msg:  "the user approves each command here (ptybridge --confirm), but no terminal of theirs is attached to show the question in; nothing was typed",
		Hint: "ask the user to open the shared terminal (run ptybridge in a terminal window), then retry",
	})
	if err != nil {
		return err
	}
	c := mostRecent(cs)
	id, err := markers.NewID()
	if err != nil {
		return failure.From(err)
	}
	file := filepath.Join(b.RuntimeDir, string(id)+".ask")
	if err := os.WriteFile(file, []byte(q.Action+"\n"+q.Text), 0o600); err != nil {
		return failure.From(err)
	}
	defer os.Remove(file)
	defer os.Remove(answerFile(file))

	w, h := popupSize(q, c.width, c.height)
	popup, cancel := context.WithCancel(context.Background())
	defer cancel()
	closed := make(chan error, 1)
	go func() {
		_, err := tmux.RunUntil(popup, "display-popup", "-E", "-c", c.name,
			"-w", strconv.Itoa(w), "-h", strconv.Itoa(h), "-T", " ptybridge: the agent asks ",
			b.Exe, AskFlag, file)
		closed <- err
	}()
	ringBell(c.tty)

	var deadline <-chan time.Time
	if limit > 0 {
		deadline = time.After(limit)
	}
	var gaveUp error
	select {
	case err := <-closed:
		if tmux.IsMissingSession(err) {
			return noBridgeOr(err)
		}
		if err != nil {
			return &failure.Error{
				Msg:  "the user approves each command here (ptybridge --confirm), and showing them the question failed: " + err.Error() + "; nothing was typed",
				Hint: "ask the user to look at the ptybridge terminal (is it very small?), then retry",
			}
		}
		return verdict(file, q)
	case <-deadline:
		gaveUp = &failure.Error{
			Code: failure.ExitTimeout,
			Msg:  fmt.Sprintf("the user did not answer whether to run it within %v (--max-time); the question was closed and nothing was typed", limit),
			Hint: "ask the user to look at the ptybridge terminal and retry, or retry with a larger --max-time",
		}
	case <-ctx.Done():
		code, why := failure.Stopped(ctx)
		gaveUp = &failure.Error{Code: code, Msg: why + " while asking the user; nothing was typed", Hint: failure.StoppedHint}
	}
	tmux.Run("display-popup", "-C", "-c", c.name)
	select {
	case <-closed:
	case <-time.After(time.Second):
		cancel()
	}
	return gaveUp
}

func answerFile(question string) string { return question + ".answer" }

func verdict(file string, q Question) error {
	got, _ := os.ReadFile(answerFile(file))
	why := "the user closed the question without answering, so it was not run"
	switch strings.TrimSpace(string(got)) {
	case yes:
		return nil
	case no:
		why = "the user refused to run it"
	}
	return &failure.Error{
		Code: failure.ExitRefused,
		Msg:  fmt.Sprintf("%s: %s; nothing was typed", why, oneLine(q.Text, 200)),
		Hint: "ask the user why, or do something else; do not retry the same thing unasked",
	}
}

func oneLine(text string, n int) string {
	s, _, more := strings.Cut(strings.TrimRight(text, "\n"), "\n")
	if r := []rune(s); len(r) > n {
		s, more = string(r[:n]), true
	}
	if more {
		s += " …"
	}
	return strconv.Quote(s)
}

// The popup's side of --confirm: keys pressed in its own terminal never reach the pane.

const popupFooter = "y = run it      n or Esc = refuse"

// Answer shows file's question on tty and writes the answer beside it, unless the tty goes first.
func Answer(file string, tty *os.File) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	action, text, _ := strings.Cut(string(data), "\n")
	q := Question{Action: action, Text: text}
	w, h, err := term.GetSize(int(tty.Fd()))
	if err != nil {
		w, h = 80, 24
	}
	old, err := term.MakeRaw(int(tty.Fd()))
	if err != nil {
		return err
	}
	defer term.Restore(int(tty.Fd()), old)
	// Raw mode: a line starts at the left edge only after its \r. Hidden cursor: nothing to type.
	fmt.Fprint(tty, "\x1b[?25l"+strings.Join(layout(q, w, h), "\r\n"))
	buf, a := make([]byte, 64), ""
	for a == "" {
		n, err := tty.Read(buf)
		if a = keyAnswer(buf[:n]); a == "" && err != nil {
			return nil // the popup closed: no answer
		}
	}
	tmp := answerFile(file) + ".tmp"
	if err := os.WriteFile(tmp, []byte(a+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, answerFile(file))
}

// keyAnswer: tmux hands a lone Escape on after its escape-time, alone in
// its read; arrow and function keys are sequences that start with Escape.
func keyAnswer(key []byte) string {
	if len(key) == 0 || (key[0] == 0x1b && len(key) > 1) {
		return ""
	}
	switch key[0] {
	case 'y', 'Y':
		return yes
	case 'n', 'N', 'q', 'Q', 0x1b, 0x03, 0x04: // Escape, Ctrl-C, Ctrl-D
		return no
	}
	return ""
}

func layout(q Question, w, h int) []string {
	w = max(w, 20)
	lines := append(wrap("The agent wants to "+q.Action+":", w), "")
	var body []string
	for _, l := range strings.Split(strings.TrimRight(q.Text, "\n"), "\n") {
		for _, part := range wrap(strings.ReplaceAll(l, "\t", "    "), w-2) {
			body = append(body, "  "+part)
		}
	}
	room := h - len(lines) - 2 // a blank line and the footer
	if len(body) > room {
		cut := max(room-1, 0)
		body = append(body[:cut], fmt.Sprintf("  … (%d more lines)", len(body)-cut))
	}
	return append(append(lines, body...), "", popupFooter)
}

func wrap(s string, w int) []string {
	var out []string
	r := []rune(s)
	for ; len(r) > w; r = r[w:] {
		out = append(out, string(r[:w]))
	}
	return append(out, string(r))
}

// popupSize fits the question in the client's terminal; the border takes two columns and rows.
func popupSize(q Question, cw, ch int) (w, h int) {
	widest := utf8.RuneCountInString("The agent wants to " + q.Action + ":")
	lines := strings.Split(strings.TrimRight(q.Text, "\n"), "\n")
	for _, l := range lines {
		widest = max(widest, utf8.RuneCountInString(l)+2)
	}
	w = min(max(widest, utf8.RuneCountInString(popupFooter))+4, cw)
	h = min(len(layout(q, w-2, len(lines)+100))+2, ch)
	return max(w, 3), max(h, 3)
}
