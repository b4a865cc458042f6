package markers

import (
	"strconv"
	"strings"
)

// Every marker of ours is an OSC sequence "ESC ] 6973;ptybridge;BODY BEL".
// The BODY starts with a kind and its fields, separated by ';':
//
//	P;PID                        the shell drew its prompt and waits for a line
//	C;PID[;LINE]                 it starts running a line (LINE: the command line, when the shell says it)
//	F;PID;STATUS[;DIR[;LINE]]    the line finished with STATUS in directory DIR
//	O;PID, o;PID                 the shell's own text (fish's right prompt) starts, ends
//	K;PID;MODE                   its line editor's mode: cmd (vi command mode: keys are commands), or ins
//	S;ID, E;ID;STATUS            an agent call's wrapper starts, ends (markers.go)
//	R;ID, r;ID                   a piece of an agent call's stderr on the terminal starts, ends (stderr.go)
//
// The hooks (shell/hooks.*) print F from the first thing that runs after the
// command, and LINE with C (zsh, fish) or with F (bash: it reads its history
// after the command, off the path of every call). LINE and DIR are
// percent-encoded (EncodeField). Older hooks print C;PID and no F.

// Event is one marker of ours, parsed.
type Event struct {
	Kind      byte // 'P', 'C', 'F', 'O', 'o', 'K', 'S', 'E', 'R', 'r'
	PID       int  // the shell's (P, C, F, O, o, K)
	ID        ID   // the agent call's (S, E, R, r)
	Status    int  // the exit status (F, E), if HasStatus
	HasStatus bool
	// Line is the command line (C, F) and Dir the working directory (F),
	// decoded; empty when the shell did not say.
	Line, Dir string
	// ViCommand (K): the line editor reads keys as vi commands (after Esc).
	ViCommand bool
}

// maxLine bounds the command line a hook puts in an event, in characters.
const maxLine = 4096

// maxLongEvent bounds an event that carries a line or a directory: the
// line of maxLine characters percent-encoded (3 bytes per byte at most,
// 4 bytes per character), a directory of PATH_MAX, and the fields.
const maxLongEvent = 3*4*maxLine + 3*4096 + 64

// ParseEvent reads the body of a marker ("P;123"). ok is false for a body
// that is no well-formed event of a known kind.
func ParseEvent(body []byte) (e Event, ok bool) {
	if len(body) < 2 || body[1] != ';' {
		return Event{}, false
	}
	e.Kind = body[0]
	fields := strings.SplitN(string(body[2:]), ";", 4)
	switch e.Kind {
	case 'S', 'R', 'r', 'E':
		e.ID = ID(fields[0])
		switch {
		case !e.ID.Valid():
		case e.Kind != 'E' && len(fields) == 1:
			return e, true
		case e.Kind == 'E' && len(fields) == 2:
			if e.Status, e.HasStatus = parseStatusField(fields[1]); e.HasStatus {
				return e, true
			}
		}
		return Event{}, false
	case 'P', 'C', 'F', 'O', 'o', 'K':
	default:
		return Event{}, false
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil || pid <= 0 || fields[0][0] == '+' {
		return Event{}, false
	}
	e.PID = pid
	switch {
	case e.Kind == 'C' && len(fields) > 1:
		// C;PID;LINE: the line is the rest, ';' and all.
		e.Line = DecodeField(strings.Join(fields[1:], ";"))
	case e.Kind == 'F':
		f := append(fields, "", "", "") // the fields left out are empty
		if e.Status, e.HasStatus = parseStatusField(f[1]); !e.HasStatus {
			return Event{}, false
		}
		e.Dir, e.Line = DecodeField(f[2]), DecodeField(f[3])
	case e.Kind == 'K':
		if len(fields) < 2 || fields[1] != "cmd" && fields[1] != "ins" {
			return Event{}, false
		}
		e.ViCommand = fields[1] == "cmd"
	}
	return e, true // P, O, o: later versions may add fields
}

// parseStatusField reads an exit status: 0 to 255 in decimal.
func parseStatusField(s string) (int, bool) {
	if s == "" || len(s) > 3 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, _ := strconv.Atoi(s)
	return n, n <= 255
}

// DecodeField undoes percent-encoding, also fish's (which encodes more):
// every "%XX" becomes its byte, and any other '%' stays.
func DecodeField(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// EventSink hears the stream as a Tracker splits it, in stream order: the
// bytes that are no marker of ours, and our events. Markers of ours that
// are no known event are dropped: they are no output either.
type EventSink interface {
	Bytes(b []byte)
	Event(e Event)
}
