package human

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"
)

// The popup's side of --confirm: ptysend run by tmux in the popup with
// AskFlag. Its terminal is the popup's own: keys pressed there never go
// to the pane.

const popupFooter = "y = run it      n or Esc = refuse"

// Answer shows the question in file on the popup's terminal tty and
// writes the human's answer beside the file; nothing when the terminal
// goes away first.
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
	// Raw mode: a line starts at the left edge only after its \r. The
	// cursor is hidden: there is nothing to type.
	fmt.Fprint(tty, "\x1b[?25l"+strings.Join(layout(q, w, h), "\r\n"))
	a, err := readAnswer(tty)
	if err != nil {
		return nil // the popup closed: no answer
	}
	tmp := answerFile(file) + ".tmp"
	if err := os.WriteFile(tmp, []byte(a+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, answerFile(file))
}

func readAnswer(r io.Reader) (string, error) {
	buf := make([]byte, 64)
	for {
		n, err := r.Read(buf)
		if a := keyAnswer(buf[:n]); a != "" {
			return a, nil
		}
		if err != nil {
			return "", err
		}
	}
}

// keyAnswer is the answer a key gives: yes for y; no for n, q, Escape,
// Ctrl-C or Ctrl-D; "" for others. tmux hands a lone Escape on after its
// escape-time, alone in its read; arrow and function keys arrive as
// sequences that start with Escape, and are not answers.
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

// layout is the popup's text for a terminal of w x h: what the agent
// wants, the text indented (wrapped, cut with a note when too long), and
// the keys.
func layout(q Question, w, h int) []string {
	w = max(w, 20)
	lines := wrap("The agent wants to "+q.Action+":", w)
	lines = append(lines, "")
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
	lines = append(lines, body...)
	return append(lines, "", popupFooter)
}

// wrap cuts s into pieces of at most w characters.
func wrap(s string, w int) []string {
	var out []string
	r := []rune(s)
	for ; len(r) > w; r = r[w:] {
		out = append(out, string(r[:w]))
	}
	return append(out, string(r))
}

// popupSize fits the popup to the question, within the client's terminal
// of cw x ch, at least wide enough for the keys. The border takes two
// columns and two rows.
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
