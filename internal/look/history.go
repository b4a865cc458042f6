package look

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/rundir"
)

const DefaultHistory = 10

// ReadHistory is the last n commands at the prompt, oldest first.
func ReadHistory(b bridge.Bridge, n int) ([]relay.Entry, error) {
	return bridge.Query(b, func(path string) ([]relay.Entry, error) { return relay.QueryHistory(path, n) })
}

// PrintHistory prints entries as a table, or as JSON lines.
func PrintHistory(entries []relay.Entry, stdout io.Writer, asJSON bool) error {
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
	_, err := stdout.Write(out.Bytes())
	return err
}

// statusText: "?" for a command whose end came without a status.
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

// ReadOutput is command id (0: the user's last) and what it printed: clean, or raw (only "\r\n" undone).
func ReadOutput(b bridge.Bridge, id int, raw bool) (relay.Entry, string, error) {
	var entry relay.Entry
	body, err := bridge.Query(b, func(path string) (body []byte, err error) {
		entry, body, err = relay.QueryOutput(path, id)
		return body, err
	})
	switch {
	case err != nil:
		return relay.Entry{}, "", err
	case raw:
		return entry, string(body), nil
	}
	return entry, cleanOutput(body), nil
}

// PrintOutput prints a command's output.
func PrintOutput(text string, stdout io.Writer) error {
	if _, err := io.WriteString(stdout, text); err != nil {
		return &failure.Error{Msg: "writing the output: " + err.Error(), Hint: "make sure ptysend's standard output can be written"}
	}
	return nil
}

// promptEOLMark is zsh's PROMPT_SP, printed after every command before the precmd hooks that send
// FINISHED: a highlighted % (# for root), spaces to the margin, and a carriage return.
var promptEOLMark = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:\x1b\[[0-9;]*m)*[%#](?:\x1b\[[0-9;]*m)* +\r \r`)
})

func cleanOutput(raw []byte) string {
	text := cleantext.ScreensString(string(promptEOLMark().ReplaceAll(raw, nil))) // a pager's screens included
	if i := strings.LastIndexByte(text, '\n'); strings.TrimSpace(text[i+1:]) == "" {
		text = text[:i+1]
	}
	return text
}

type Session struct {
	Name string `json:"name"`
	// Where the agent's commands run: Far, behind a carrier (Via).
	User  string `json:"user,omitempty"`
	Host  string `json:"host,omitempty"`
	Shell string `json:"shell,omitempty"`
	Far   bool   `json:"far"`
	Via   string `json:"via,omitempty"`
	// Remote is the ssh destination of a remote bridge (ptybridge --host), whose session runs on
	// that host; its State "disconnected" when no connection to it is open.
	Remote string `json:"remote,omitempty"`
	// Command is what the bridge was opened with (ptybridge -- COMMAND).
	Command string `json:"command,omitempty"`
	// State is "free" or "busy", Busy with what.
	State    string `json:"state"`
	Busy     string `json:"busy,omitempty"`
	Attached int    `json:"attached"`
}

// Sessions repairs no relay.
func Sessions(exe string) []Session {
	var list []Session
	for _, s := range bridge.List() {
		list = append(list, describe(s, bridge.Bridge{Name: s.Name, RuntimeDir: rundir.Path(), Exe: exe}))
	}
	return list
}

func describe(s bridge.Session, b bridge.Bridge) Session {
	out := Session{Name: s.Name, Attached: s.Attached, Command: s.Command, State: "busy"}
	query := func() (*relay.Status, error) { return relay.QueryStatus(b.SocketPath()) }
	a, err := query()
	if err != nil {
		out.Busy = "its relay does not answer (the next ptysend call repairs it)"
		return out
	}
	a, st, err := pane.PeekSettled(a, b, query)
	if err != nil {
		out.Busy = failure.From(err).Msg
		return out
	}
	switch {
	case st.Far != nil:
		out.Far, out.Via = true, st.Far.Via
		if rec := st.Far.Record; rec != nil {
			out.User, out.Host, out.Shell = rec.User, rec.Host, string(rec.Kind)
		}
	case st.Shell != nil:
		out.User, out.Shell = rundir.UserName(), st.Shell.Name
		out.Host, _ = os.Hostname()
	}
	switch {
	case st.Kind == pane.AgentCall:
		out.Busy = "a ptysend call is running in it" + choose(a.Call.Call != "", ": "+a.Call.Call, "")
	case st.Kind == pane.Idle:
		out.State = "free"
	case st.Kind == pane.Lingering:
		out.State = pane.Lingering
		if until, ok := b.LingeringUntil(); ok {
			out.Busy = "until " + until.Format("15:04")
		}
	case st.Refusal != nil:
		out.Busy = failure.From(st.Refusal).Msg
	default:
		out.Busy = st.Kind
	}
	return out
}

func PrintSessions(w io.Writer, list []Session, asJSON bool) error {
	if asJSON {
		if list == nil {
			list = []Session{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(w, "no bridge is running: ask the user to start one with ptybridge")
		return nil
	}
	for _, s := range list {
		where := choose(s.User != "", s.User+"@"+s.Host, "?")
		shell := cmp.Or(s.Shell, "shell not known yet") + choose(s.Far, " via "+s.Via, choose(s.Remote != "", " (remote)", " (local)"))
		state := s.State + choose(s.Busy != "", choose(s.State == pane.Lingering, " ", ": ")+s.Busy, "")
		terms := fmt.Sprintf("%d terminal%s", s.Attached, choose(s.Attached == 1, "", "s"))
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", s.Name, where, shell, state, terms)
	}
	return nil
}
