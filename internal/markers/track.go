package markers

import (
	"bytes"
	"fmt"

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
	carry // a possible start of a marker, or a marker without its BEL yet
	esc   escState
	own   bool // between OWN and OWN-END: the shell's text, not typing
	// paste and alt are the bracketed paste and alternate screen (of a
	// full-screen program) modes; params the current CSI sequence's
	// parameter bytes.
	paste, alt cleantext.Mode
	params     []byte
	// Sink, when set, hears the stream split into output and events.
	Sink EventSink
}

// Paste is the bracketed paste mode as of the bytes fed so far: unknown in
// the middle of an escape sequence or of a held marker prefix, which
// whoever reads the stream from here on could not finish.
func (t *Tracker) Paste() cleantext.Mode { return t.mode(t.paste) }

// Alternate is the alternate screen mode, as Paste.
func (t *Tracker) Alternate() cleantext.Mode { return t.mode(t.alt) }

func (t *Tracker) mode(m cleantext.Mode) cleantext.Mode {
	if m == "" || t.esc != escNone || t.holding() {
		return cleantext.Unknown
	}
	return m
}

// Snapshot is the tracker's view: the state, and the shell it is about.
type Snapshot struct {
	State PaneState
	PID   int
}

func (s Snapshot) String() string { return fmt.Sprintf("%s:%d", s.State, s.PID) }

func (t *Tracker) Snapshot() Snapshot {
	if t.state == "" {
		return Snapshot{StateUnknown, 0}
	}
	return Snapshot{t.state, t.pid}
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

// output passes on bytes that are no marker of ours.
func (t *Tracker) output(b []byte) {
	if len(b) == 0 {
		return
	}
	t.sawBytes(b)
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

// sawBytes notes output: at a prompt, a printable character is the echo
// of the human's typing. Escape sequences and control characters are the
// line editor's own (zsh turns bracketed paste on after its prompt).
func (t *Tracker) sawBytes(b []byte) {
	for _, c := range b {
		switch t.esc {
		case escNone:
			if c == 0x1b {
				t.esc = escStart
			} else if c >= 0x20 && c != 0x7f && t.state == StatePrompt && !t.own {
				t.state = StateTyped
			}
		case escStart:
			switch c {
			case '[':
				t.esc = escCSI
				t.params = t.params[:0]
			case ']', 'P', '_', '^', 'X':
				t.esc = escString
			case 'c': // RIS, a full reset: modes off
				t.esc, t.paste, t.alt = escNone, cleantext.Off, cleantext.Off
			default:
				t.esc = escNone
			}
		case escCSI:
			if c >= 0x40 && c <= 0x7e {
				t.esc = escNone
				if c == 'h' || c == 'l' {
					t.paste = cleantext.ModeSwitch(t.params, c == 'h', t.paste, []string{"2004"})
					t.alt = cleantext.ModeSwitch(t.params, c == 'h', t.alt, []string{"1049", "1047", "47"})
				}
			} else if len(t.params) <= cleantext.MaxParams {
				t.params = append(t.params, c)
			}
		case escString:
			switch c {
			case 0x07:
				t.esc = escNone
			case 0x1b:
				t.esc = escStringEnd
			}
		case escStringEnd: // ESC \ ends the string
			t.esc = escNone
		}
	}
}

type escState uint8

const (
	escNone escState = iota
	escStart
	escCSI
	escString
	escStringEnd
)

// TrackerFrom starts a tracker from a known view.
func TrackerFrom(s Snapshot) *Tracker {
	if s.State == StateUnknown {
		return &Tracker{}
	}
	return &Tracker{state: s.State, pid: s.PID}
}
