package relay

import (
	"bufio"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// Queries (ptysend --status, --history, --output) read what the shared
// pane's relay knows and never wait while a call holds the pane: one
// request, one answer, then the relay hangs up.
//
//	status       -> status VERSION VIEW... HELD CALL SINCE QUEUED DIR, [running ENTRY], end
//	history N    -> entry ENTRY..., end
//	output ID    -> entry ENTRY, data o 0 LENGTH BYTES, end    (ID 0: the human's last command)

// View is where the pane stands, as a turn's hello and a status tell it:
// the pane, what its shell last said (the hooks' events), and the stream.
type View struct {
	PaneID  string
	PanePID int
	Shell   markers.Snapshot
	// Relay names the relay process and Offset the bytes of stream it read:
	// views with the same Relay and Offset saw the same stream, no more.
	Relay            string
	Offset           int64
	Paste, Alternate cleantext.Mode // bracketed paste; alternate screen (a full-screen program)
	Column           int            // the cursor's column at the end of the stream, from 0
}

// view is the protocol's version, then the relay's View, as message fields. Call with s.mu held.
func (s *server) view() []any {
	snap := s.tracker.Snapshot()
	line, col := drawnLine(s.lastLine)
	if snap.State == markers.StateTyped && s.promptShownEmpty(line, col) {
		snap.State = markers.StatePrompt
	}
	return []any{Version, s.cfg.PaneID, s.cfg.PanePID, word(snap.State), snap.PID, snap.ViCommand, s.instance, s.streamed,
		word(s.tracker.Paste()), word(s.tracker.Alternate()), col}
}

func parseView(m *message, i int) View {
	return View{PaneID: m.text(i), PanePID: m.int(i + 1),
		Shell: markers.Snapshot{State: markers.PaneState(m.field(i + 2)), PID: m.int(i + 3), ViCommand: m.bool(i + 4)},
		Relay: m.field(i + 5), Offset: m.int64(i + 6),
		Paste: cleantext.Mode(m.field(i + 7)), Alternate: cleantext.Mode(m.field(i + 8)), Column: m.int(i + 9)}
}

const viewFields = 10

// Status is the relay's answer to "status".
type Status struct {
	View
	Call     *Call  // nil when no call holds the pane
	Running  *Entry // the innermost command the history sees running
	ShellDir string // the directory at the shell's last FINISHED event
}

// Call is the ptysend call that holds the pane.
type Call struct {
	Call   string    `json:"call"` // as the agent typed it, shortened; "" when it did not say
	Since  time.Time `json:"since"`
	Queued int       `json:"queued"` // calls waiting behind it
}

// Entry is a command of the history, as queries answer it and --history --json prints it.
type Entry struct {
	ID      int    `json:"id" jsonschema:"the command's id: output takes it"`
	Who     string `json:"who" jsonschema:"user or agent"`
	Command string `json:"command" jsonschema:"the command line as typed"`
	// Running: no end seen yet. Status is null while running, and for a
	// command whose end came without a status (an interrupted one).
	Running    bool       `json:"running" jsonschema:"no end seen yet"`
	Status     *int       `json:"status" jsonschema:"its exit status; null while it runs or when its end came without one"`
	Start      time.Time  `json:"started_at" jsonschema:"when it started"`
	End        *time.Time `json:"ended_at" jsonschema:"when it ended; null while it runs"`
	DurationMS int64      `json:"duration_ms"`
	Dir        string     `json:"cwd" jsonschema:"the directory where it started"`
	ShellPID   int        `json:"shell_pid"`
	// OutputBytes is all it printed; OutputLeftOut what of that the
	// history no longer holds (the middle of a long output).
	OutputBytes   int64 `json:"output_bytes" jsonschema:"all it printed, in bytes"`
	OutputLeftOut int64 `json:"output_left_out" jsonschema:"bytes of that the history no longer holds (the middle of a long output)"`
}

// answer encodes the answer to the query m, once caught up with the stream.
func (s *server) answer(m message) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.catchUp()
	var b []byte
	switch {
	case m.verb() == "status" && m.fieldCount(0):
		s.turns.dropHungUp()
		held, call, since := s.turns.current != nil, "", time.Time{}
		if held {
			call, since = s.turns.holder.call, s.turns.holder.since
		}
		dir := ""
		if sh := s.history.shells[s.tracker.Snapshot().PID]; sh != nil {
			dir = sh.dir
		}
		b = appendMessage(b, "status", append(s.view(), held, call, since, len(s.turns.queue), dir)...)
		if n := len(s.history.open); n > 0 {
			b = appendEntry(b, "running", s.history.open[n-1].entry(s.history.now()))
		}
	case m.verb() == "history" && m.fieldCount(1) && m.int(1) >= 0 && m.err == nil:
		for _, e := range s.history.Entries(m.int(1)) {
			b = appendEntry(b, "entry", e)
		}
	case m.verb() == "output" && m.fieldCount(1) && m.int(1) >= 0 && m.err == nil:
		rec := s.history.Find(m.int(1))
		if rec == nil {
			return appendMessage(b, "error", unknownCommand(m.int(1)))
		}
		b = appendEntry(b, "entry", rec.entry(s.history.now()))
		b = appendData(b, "o", 0, rec.out.Render())
	default:
		return appendMessage(b, "error", fmt.Sprintf("bad query %q", strings.Join(m.words, " ")))
	}
	// The version ends every answer: a query needs no status first to know the relay speaks its own.
	return appendMessage(b, "end", Version)
}

func unknownCommand(id int) string {
	if id == 0 {
		return "the history holds no command of the user's yet (a shell's commands are recorded from the first ptysend command in it on)"
	}
	return fmt.Sprintf("the history holds no command with id %d", id)
}

func appendEntry(b []byte, verb string, e Entry) []byte {
	status, end := -1, time.Time{}
	if e.Status != nil {
		status = *e.Status
	}
	if e.End != nil {
		end = *e.End
	}
	return appendMessage(b, verb, e.ID, word(e.Who), e.Command, e.Running, status, e.Start, end, e.DurationMS,
		e.Dir, e.ShellPID, e.OutputBytes, e.OutputLeftOut)
}

func parseEntry(m *message) Entry {
	e := Entry{ID: m.int(1), Who: m.field(2), Command: m.text(3), Running: m.bool(4), Start: m.time(6),
		DurationMS: m.int64(8), Dir: m.text(9), ShellPID: m.int(10), OutputBytes: m.int64(11), OutputLeftOut: m.int64(12)}
	if st := m.int(5); st >= 0 {
		e.Status = &st
	}
	if end := m.time(7); !end.IsZero() {
		e.End = &end
	}
	return e
}

const queryTimeout = 5 * time.Second // for the answer

// query sends one request and reads the answer up to its "end".
func query(path string, verb string, fields ...any) ([]message, error) {
	c, err := platform.DialUnixBlocking(path, queryTimeout)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoRelay, err)
	}
	defer c.Close()
	if err := sendToRelay(c, verb, fields...); err != nil {
		return nil, err
	}
	r := bufio.NewReaderSize(c, 64<<10)
	var answer []message
	for {
		m, err := readMessage(r)
		switch {
		case err != nil && len(answer) == 0 && errors.Is(hungUp(err), ErrHungUp):
			// A relay of an older version greets and hangs up.
			return nil, fmt.Errorf("%w: it hung up on %q", ErrVersion, verb)
		case err != nil:
			return nil, hungUp(err)
		case len(answer) == 0 && !slices.Contains([]string{"status", "entry", "end", "error"}, m.verb()):
			return nil, fmt.Errorf("%w: %q", ErrVersion, m.words)
		case m.verb() == "error":
			return nil, errorMessage(m.text(1))
		case m.verb() == "end" && m.int(1) == Version && m.err == nil:
			return answer, nil
		case m.verb() == "end":
			return nil, fmt.Errorf("%w: it ended its answer to %q with %q", ErrVersion, verb, m.words)
		}
		answer = append(answer, m)
	}
}

// QueryStatus asks the shared pane's relay where the pane stands.
func QueryStatus(path string) (*Status, error) {
	ms, err := query(path, "status")
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 || ms[0].verb() != "status" || ms[0].int(1) != Version {
		return nil, ErrVersion
	}
	m := &ms[0]
	s := &Status{View: parseView(m, 2)}
	if i := 2 + viewFields; m.bool(i) {
		s.Call = &Call{Call: m.text(i + 1), Since: m.time(i + 2), Queued: m.int(i + 3)}
	}
	s.ShellDir = m.text(2 + viewFields + 4)
	if len(ms) > 1 && ms[1].verb() == "running" {
		e := parseEntry(&ms[1])
		s.Running = &e
	}
	return s, m.err
}

// QueryHistory asks for the last n commands of the history.
func QueryHistory(path string, n int) ([]Entry, error) {
	ms, err := query(path, "history", n)
	if err != nil {
		return nil, err
	}
	es := make([]Entry, len(ms))
	for i := range ms {
		if es[i] = parseEntry(&ms[i]); ms[i].err != nil {
			return nil, ms[i].err
		}
	}
	return es, nil
}

// QueryOutput asks for what command id printed (0: the human's last).
func QueryOutput(path string, id int) (Entry, []byte, error) {
	ms, err := query(path, "output", id)
	if err != nil {
		return Entry{}, nil, err
	}
	if len(ms) != 2 || ms[0].verb() != "entry" || ms[1].verb() != "data" {
		return Entry{}, nil, fmt.Errorf("unexpected answer from the relay")
	}
	return parseEntry(&ms[0]), ms[1].data, ms[0].err
}

// IsAnswer reports whether err is the relay's own answer (an error it
// sent), not a failure to reach it.
func IsAnswer(err error) bool {
	var e errorMessage
	return errors.As(err, &e)
}
