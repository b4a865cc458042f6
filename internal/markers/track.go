package markers

import (
	"bytes"

	"github.com/ptybridge/ptybridge/internal/cleantext"
)

// The relay follows the shell's events in a Tracker, so that before typing
// anything ptysend knows whether the shell is at an empty prompt, has a
// half-typed line (bytes were echoed after PROMPT), or is running something
// that /proc cannot tell apart from an idle shell (a loop of builtins).

// PaneState is the kind of the last event of the pane's shell.
type PaneState string

const (
	StateUnknown PaneState = "unknown" // no integrated shell has spoken yet
	StatePrompt  PaneState = "prompt"  // at its prompt, nothing typed
	StateTyped   PaneState = "typed"   // at its prompt, something echoed since
	StateRunning PaneState = "running" // running a line
)

var eventPrefix = []byte("\x1b]" + osc + ";")

// maxEvent bounds an event marker that carries no text.
const maxEvent = 64

// Tracker follows the shell's events in the raw stream, chunk by chunk.
type Tracker struct {
	state PaneState
	pid   int
	// viCommand: shell viPID's line editor said (K) that it reads keys as vi commands.
	viCommand bool
	viPID     int
	carry     // a possible start of a marker, or a marker without its BEL yet
	modes     cleantext.Modes
	own       bool // between OWN and OWN-END: the shell's text, not typing
	// Sink, when set, hears the stream split into output and events.
	Sink EventSink
}

// Paste is the bracketed paste mode as of the bytes fed so far: unknown in
// the middle of an escape sequence or of a held marker prefix, which
// whoever reads the stream from here on could not finish.
func (t *Tracker) Paste() cleantext.Mode { return t.mode(t.modes.Paste()) }

// Alternate is the alternate screen mode (a full-screen program's), as Paste.
func (t *Tracker) Alternate() cleantext.Mode { return t.mode(t.modes.Alternate()) }

func (t *Tracker) mode(m cleantext.Mode) cleantext.Mode {
	if t.holding() {
		return cleantext.Unknown
	}
	return m
}

// Snapshot is the tracker's view: the state, and the shell it is about.
type Snapshot struct {
	State PaneState
	PID   int
	// ViCommand: at its prompt (typed or not), the shell's line editor is in vi command mode,
	// where typed keys are commands (. repeats, / searches the history, Enter runs what it found).
	ViCommand bool
}

func (t *Tracker) Snapshot() Snapshot {
	if t.state == "" {
		return Snapshot{State: StateUnknown}
	}
	atPrompt := t.state == StatePrompt || t.state == StateTyped
	return Snapshot{State: t.state, PID: t.pid, ViCommand: atPrompt && t.viCommand && t.viPID == t.pid}
}

func (t *Tracker) Write(p []byte) (int, error) {
	data := t.join(p)
	for len(data) > 0 {
		i := bytes.Index(data, eventPrefix)
		if i < 0 {
			t.output(t.keep(data, heldPrefix(data, eventPrefix)))
			break
		}
		t.output(data[:i])
		data = data[i:]
		limit := eventLimit(data[len(eventPrefix):])
		end := bytes.IndexByte(data, '\a')
		switch {
		case end > limit || end < 0 && len(data) > limit: // not an event of ours: just bytes
			t.output(data[:len(eventPrefix)])
			data = data[len(eventPrefix):]
		case end < 0:
			t.hold(data)
			return len(p), nil
		default:
			t.event(data[len(eventPrefix):end])
			data = data[end+1:]
		}
	}
	return len(p), nil
}

// eventLimit bounds a marker whose body starts with rest: only those that
// carry a command line or a directory may be long. A marker-shaped run
// without its BEL within the limit is someone else's escape, or output.
func eventLimit(rest []byte) int {
	if len(rest) >= 2 && rest[1] == ';' && (rest[0] == 'C' || rest[0] == 'F') {
		return maxLongEvent
	}
	return maxEvent
}

// output passes on bytes that are no marker of ours. At a prompt, text
// (not the line editor's escape sequences and controls: zsh turns
// bracketed paste on after its prompt) is the echo of the human's typing.
func (t *Tracker) output(b []byte) {
	if len(b) == 0 {
		return
	}
	if t.modes.Write(b) && t.state == StatePrompt && !t.own {
		t.state = StateTyped
	}
	if t.Sink != nil {
		t.Sink.Bytes(b)
	}
}

// event handles the body of a marker, e.g. "P;123". A frame of a
// command's stderr (R...r) is, like the shell's own text, not the human's
// typing, wherever it lands. The sink hears every known event.
func (t *Tracker) event(body []byte) {
	e, ok := ParseEvent(body)
	if !ok {
		return
	}
	switch e.Kind {
	case 'P':
		t.state, t.pid, t.own = StatePrompt, e.PID, false
	case 'C':
		t.state, t.pid, t.own = StateRunning, e.PID, false
		t.viCommand = false // the next prompt's editor says its mode again
	case 'K':
		// bash's comes before its prompt's P (readline draws the mode first), zsh's and fish's after.
		t.viCommand, t.viPID = e.ViCommand, e.PID
	case 'S':
		// A wrapper's START after the echo of the line that sourced it: the line runs, as a 'C' would
		// say, had the shell one (dash has none). Elsewhere (a REPL's, a far shell's) it says nothing.
		if t.state == StateTyped {
			t.state = StateRunning
		}
	case 'O', 'R':
		t.own = true
	case 'o', 'r':
		t.own = false
	}
	if t.Sink != nil {
		t.Sink.Event(e)
	}
}

// TrackerFrom starts a tracker from a known view.
func TrackerFrom(s Snapshot) *Tracker {
	if s.State == StateUnknown {
		return &Tracker{}
	}
	return &Tracker{state: s.State, pid: s.PID, viCommand: s.ViCommand, viPID: s.PID}
}
