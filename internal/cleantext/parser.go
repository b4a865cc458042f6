package cleantext

import (
	"bytes"
	"cmp"
	"slices"
)

// The parser follows tmux's input parser (input.c), because tmux is the
// terminal the pane's output went through: a sequence it hides, we drop;
// a control it acts on in the middle of a sequence, we act on too. The
// Writer and Modes (the relay's Tracker, a call's watch for full-screen
// programs) share it.
type parserState uint8

const (
	ground             parserState = iota // text and controls
	escape                                // after ESC
	escapeIntermediate                    // ESC then ' '..'/': charset designations (ESC ( B, ESC % G) and the like
	csi                                   // ESC [ ... up to the final byte
	oscString                             // ESC ] ... ends at BEL or ST
	controlString                         // SOS, PM, APC (ESC X, ESC ^, ESC _) and tmux's title (ESC k): ends at ST
	dcsString                             // ESC P ... ends at ST only; another ESC inside is content
	dcsEscape                             // an ESC inside a DCS: ST if '\' follows
)

const (
	bel = 0x07
	can = 0x18 // cancels a sequence
	sub = 0x1a // cancels a sequence
	esc = 0x1b
)

// largestArg caps a CSI parameter (beyond farthestColumn) against overflow.
const largestArg = 1 << 16

type parser struct {
	state      parserState
	seq        csiSequence // the CSI being read, when state is csi
	paste, alt Mode        // bracketed paste and the alternate screen, as the output switched them
}

type csiSequence struct {
	arg     int  // the first parameter
	argDone bool // it has ended (';' or ':')
	plain   bool // no private marker such as '?', no intermediate byte: it may edit the line
	params  []byte
}

// step reads b, a C0 control or DEL, or a byte of a sequence. It returns
// what the line must do: b itself for a control the terminal acts on (also
// inside an escape or CSI sequence, which ESC, CAN and SUB end) or the
// final byte of a plain CSI (its first parameter in p.seq.arg); else 0.
func (p *parser) step(b byte) byte {
	switch s := p.state; {
	case s == dcsString:
		if b == esc {
			p.state = dcsEscape
		}
	case s == dcsEscape:
		p.state = dcsString // tmux's passthrough doubles the ESCs it carries inside a DCS
		if b == '\\' {
			p.state = ground
		}
	case s == oscString || s == controlString: // never text
		switch {
		case b == esc: // it ends the string; ST ("ESC \") ends as a sequence of its own
			p.state = escape
		case b == can || b == sub, b == bel && s == oscString:
			p.state = ground
		}
	case b < 0x20 || s == ground:
		switch b {
		case esc:
			p.state = escape
		case can, sub:
			p.state = ground
		case '\n', '\r', '\b', '\t':
			return b
		}
		// BEL, NUL, SO, SI, VT, FF, DEL...: nothing shows in the text.
	case s == escape:
		p.escapeByte(b)
	case s == escapeIntermediate:
		if b >= 0x30 && b <= 0x7e {
			p.state = ground // the final byte: a designation, nothing to show
		}
	case s == csi:
		return p.csiByte(b)
	}
	return 0
}

// escapeByte reads the byte after ESC. Bytes from 0x7f up are ignored,
// as tmux does, so a UTF-8 character is never split.
func (p *parser) escapeByte(b byte) {
	switch {
	case b >= 0x20 && b <= 0x2f:
		p.state = escapeIntermediate
	case b == '[':
		p.state = csi
		p.seq = csiSequence{plain: true, params: p.seq.params[:0]}
	case b == ']':
		p.state = oscString
	case b == 'P':
		p.state = dcsString
	case b == 'X' || b == '^' || b == '_' || b == 'k':
		p.state = controlString
	case b == 'c': // RIS, a full reset: modes off
		p.state, p.paste, p.alt = ground, Off, Off
	case b >= 0x30 && b <= 0x7e:
		p.state = ground // ESC 7, ESC 8, ESC =, ESC M, ...: nothing to show
	}
}

func (p *parser) csiByte(b byte) byte {
	if b < 0x40 && len(p.seq.params) <= maxParams {
		p.seq.params = append(p.seq.params, b)
	}
	switch {
	case b >= '0' && b <= '9':
		if !p.seq.argDone {
			p.seq.arg = min(p.seq.arg*10+int(b-'0'), largestArg)
		}
	case b == ';' || b == ':':
		p.seq.argDone = true
	case b >= 0x3c && b <= 0x3f, b >= 0x20 && b <= 0x2f:
		p.seq.plain = false
	case b >= 0x40 && b <= 0x7e:
		p.state = ground
		if p.seq.plain {
			return b
		}
		if b == 'h' || b == 'l' {
			p.paste = modeSwitch(p.seq.params, b == 'h', p.paste, "2004")
			p.alt = modeSwitch(p.seq.params, b == 'h', p.alt, "1049", "1047", "47")
		}
	}
	return 0
}

// Mode is a terminal mode the output switches: bracketed paste (?2004,
// off at ESC c), in which a line editor takes tmux's paste-buffer -p
// (ESC[200~ ... ESC[201~) as text (a TAB no completion, a newline not
// run), or a full-screen program's alternate screen (?1049, 1047, 47).
type Mode string

const (
	Unknown Mode = "unknown" // no switch seen since the reading started
	Off     Mode = "off"
	On      Mode = "on"
)

// maxParams bounds the parameters kept of a CSI sequence: past it, a mode is unknown.
const maxParams = 32

// modeSwitch is a mode after a CSI sequence ending in h (set) or l
// (reset) with params: private modes ("?1;2004") listing one of numbers.
func modeSwitch(params []byte, set bool, mode Mode, numbers ...string) Mode {
	if len(params) == 0 || params[0] != '?' {
		return mode
	}
	if len(params) > maxParams {
		return Unknown
	}
	for p := range bytes.SplitSeq(params[1:], []byte(";")) {
		if slices.Contains(numbers, string(p)) {
			if set {
				return On
			}
			return Off
		}
	}
	return mode
}

// Modes follows the modes a terminal's output switches (Mode), reading
// its escape sequences as the Writer does.
type Modes struct{ parser }

// Write reads p, and reports whether it showed text: a printable byte
// outside escape sequences.
func (m *Modes) Write(p []byte) (printed bool) {
	for len(p) > 0 {
		if m.state == ground { // only ESC starts anything
			i := bytes.IndexByte(p, esc)
			if i < 0 {
				i = len(p)
			}
			printed = printed || bytes.ContainsFunc(p[:i], func(r rune) bool { return r >= 0x20 && r != 0x7f })
			if p = p[i:]; len(p) == 0 {
				break
			}
		}
		m.step(p[0])
		p = p[1:]
	}
	return printed
}

// Paste is the bracketed paste mode: Unknown mid-sequence or if never switched.
func (m *Modes) Paste() Mode { return m.mode(m.paste) }

// Alternate is the alternate screen's mode, as Paste.
func (m *Modes) Alternate() Mode { return m.mode(m.alt) }

func (m *Modes) mode(x Mode) Mode {
	if m.state != ground {
		return Unknown
	}
	return cmp.Or(x, Unknown)
}
