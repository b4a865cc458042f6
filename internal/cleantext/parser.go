package cleantext

// The parser follows tmux's input parser (input.c), because tmux is the
// terminal the pane's output went through: a sequence it hides, we drop;
// a control it acts on in the middle of a sequence, we act on too.
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

type csiSequence struct {
	arg     int  // the first parameter
	argDone bool // it has ended (';' or ':')
	plain   bool // no private marker such as '?', no intermediate byte: it may edit the line
	params  []byte
}

// control acts on a C0 control byte, also inside an escape or CSI
// sequence (which ESC, CAN and SUB end), as the terminal does.
func (c *Writer) control(b byte) {
	switch b {
	case '\n':
		c.endLine()
	case '\r':
		c.line.moveTo(0)
	case '\b':
		c.line.moveLeft(1)
	case '\t':
		c.line.put(tab)
	case esc:
		c.state = escape
	case can, sub:
		c.state = ground
	}
	// BEL, NUL, SO, SI, VT, FF, DEL...: nothing shows in the text.
}

func (c *Writer) sequenceByte(b byte) {
	switch s := c.state; {
	case s == dcsString:
		if b == esc {
			c.state = dcsEscape
		}
	case s == dcsEscape:
		c.state = dcsString // tmux's passthrough doubles the ESCs it carries inside a DCS
		if b == '\\' {
			c.state = ground
		}
	case s == oscString || s == controlString: // never text
		switch {
		case b == esc: // it ends the string; ST ("ESC \") ends as a sequence of its own
			c.state = escape
		case b == can || b == sub, b == bel && s == oscString:
			c.state = ground
		}
	case b < 0x20:
		c.control(b)
	case s == escape:
		c.escapeByte(b)
	case s == escapeIntermediate:
		if b >= 0x30 && b <= 0x7e {
			c.state = ground // the final byte: a designation, nothing to show
		}
	case s == csi:
		c.csiByte(b)
	}
}

// escapeByte reads the byte after ESC. Bytes from 0x7f up are ignored,
// as tmux does, so a UTF-8 character is never split.
func (c *Writer) escapeByte(b byte) {
	switch {
	case b >= 0x20 && b <= 0x2f:
		c.state = escapeIntermediate
	case b == '[':
		c.state = csi
		c.seq = csiSequence{plain: true, params: c.seq.params[:0]}
	case b == ']':
		c.state = oscString
	case b == 'P':
		c.state = dcsString
	case b == 'X' || b == '^' || b == '_' || b == 'k':
		c.state = controlString
	case b == 'c': // RIS, a full reset: modes off
		c.state, c.paste = ground, Off
		c.switchScreen(Off)
	case b >= 0x30 && b <= 0x7e:
		c.state = ground // ESC 7, ESC 8, ESC =, ESC M, ...: nothing to show
	}
}

func (c *Writer) csiByte(b byte) {
	if b < 0x40 && len(c.seq.params) <= MaxParams {
		c.seq.params = append(c.seq.params, b)
	}
	switch {
	case b >= '0' && b <= '9':
		if !c.seq.argDone {
			c.seq.arg = min(c.seq.arg*10+int(b-'0'), largestArg)
		}
	case b == ';' || b == ':':
		c.seq.argDone = true
	case b >= 0x3c && b <= 0x3f, b >= 0x20 && b <= 0x2f:
		c.seq.plain = false
	case b >= 0x40 && b <= 0x7e:
		c.state = ground
		if c.seq.plain {
			c.editLine(b, c.seq.arg)
		} else if b == 'h' || b == 'l' {
			c.paste = ModeSwitch(c.seq.params, b == 'h', c.paste, []string{"2004"})
			c.switchScreen(ModeSwitch(c.seq.params, b == 'h', c.alt, altScreens))
		}
	}
}

// editLine carries out the CSI sequences that edit the line; not colours.
func (c *Writer) editLine(final byte, arg int) {
	n := max(1, arg) // a count or column: absent or 0 means 1
	switch final {
	case 'K', 'J': // EL; ED, which erases the line as a part of the screen
		switch arg {
		case 0:
			c.line.eraseToEnd()
		case 1:
			c.line.eraseToStart()
		case 2:
			c.line.eraseAll()
		}
	case 'G': // CHA, 1-based
		c.line.moveTo(n - 1)
	case 'C': // CUF
		c.line.moveRight(n)
	case 'D': // CUB
		c.line.moveLeft(n)
	case 'P': // DCH
		c.line.deleteCells(n)
	case 'X': // ECH
		c.line.eraseCells(n)
	case '@': // ICH
		c.line.insertBlanks(n)
	}
}
