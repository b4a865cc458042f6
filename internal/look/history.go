package look

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// DefaultHistory is how many commands --history shows without =N.
const DefaultHistory = 10

// History prints the last n commands, oldest first: one line each (id,
// who, status, start, duration, directory, command line), or one JSON
// object a line.
func History(b bridge.Bridge, n int, stdout io.Writer, asJSON bool) error {
	entries, err := bridge.Query(b, func(path string) ([]relay.Entry, error) { return relay.QueryHistory(path, n) })
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if asJSON {
		enc := json.NewEncoder(&out)
		for _, e := range entries {
			if err := enc.Encode(e); err != nil {
				return err
			}
		}
	} else {
		now := time.Now()
		tw := tabwriter.NewWriter(&out, 0, 0, 2, ' ', 0)
		for _, e := range entries {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", e.ID, e.Who, statusText(e), clock(e.Start, now),
				duration(time.Duration(e.DurationMS)*time.Millisecond), cmp.Or(e.Dir, unknownDir), oneLine(e.Command))
		}
		tw.Flush()
	}
	_, err = stdout.Write(out.Bytes())
	return err
}

// statusText is an entry's status: the number, "running", or "?" when
// its end came without one.
func statusText(e relay.Entry) string {
	switch {
	case e.Running:
		return "running"
	case e.Status == nil:
		return "?"
	}
	return strconv.Itoa(*e.Status)
}

// duration is d rounded for people: 0.3s, 12s, 2m05s, 1h02m.
func duration(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// oneLine shows a command line on one line: newlines, TABs and other
// control characters as escapes (\n, \t, \x1b).
func oneLine(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < ' ' || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Output prints what command id printed (0: the user's last), as clean
// text, or raw: the terminal's bytes with only its "\r\n" undone.
func Output(b bridge.Bridge, id int, raw bool, stdout io.Writer) error {
	body, err := bridge.Query(b, func(path string) ([]byte, error) {
		_, body, err := relay.QueryOutput(path, id)
		return body, err
	})
	if err != nil {
		return err
	}
	if raw {
		_, err = stdout.Write(body)
	} else {
		_, err = io.WriteString(stdout, cleanOutput(body))
	}
	if err != nil {
		return &failure.Error{Msg: "writing the output: " + err.Error(), Hint: "make sure ptysend's standard output can be written"}
	}
	return nil
}

// promptEOLMark is zsh's PROMPT_SP, printed after every command before
// the precmd hooks that send FINISHED: a highlighted % (# for root),
// spaces to the margin, and a carriage return. Compiled when first needed,
// not at every start of ptysend.
var promptEOLMark = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:\x1b\[[0-9;]*m)*[%#](?:\x1b\[[0-9;]*m)* +\r \r`)
})

// cleanOutput is a command's output as clean text, without zsh's
// end-of-line mark nor a last line that shows nothing.
func cleanOutput(raw []byte) string {
	raw = promptEOLMark().ReplaceAll(raw, nil)
	text := cleantext.String(string(raw))
	if i := strings.LastIndexByte(text, '\n'); strings.TrimSpace(text[i+1:]) == "" {
		text = text[:i+1]
	}
	return text
}
