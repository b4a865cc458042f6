package cleantext

import (
	"bytes"
	"cmp"
	"io"
	"sync"
	"unicode/utf8"
)

// Writer writes what is written to it, cleaned, to the underlying writer
// a line at a time. Sequences and characters may be split across Writes;
// its methods may be called from different goroutines.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	err error // the first error from w; every later call returns it

	out  []byte // clean text not yet written to w
	line line   // the line being shown, not finished yet

	parser

	partial  [utf8.UTFMax]byte // a UTF-8 character the end of a Write cut off
	npartial int

	dropping bool // up to the next '\n', after TakePendingIf
	// What the alternate screen (a full-screen program's) shows is no output, and the main
	// screen's line comes back as it was when the program leaves it.
	mainLine    line
	keepScreens bool // ScreensString
}

const flushSize = 32 << 10 // how much clean text collects before it is written to w

func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write cleans p, writing every line it completes before it returns.
func (c *Writer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	n := len(p)
	p = c.finishRune(p)
	for len(p) > 0 && c.err == nil {
		if c.dropping { // the human's echoed answer, up to its '\n'
			var answered bool
			_, p, answered = bytes.Cut(p, []byte("\n"))
			c.dropping = !answered
			continue
		}
		if c.settled() && c.line.isEmpty() && !c.onScreenOnly() {
			p = c.passCleanLines(p)
		}
		p = c.interpret(p)
	}
	c.flush()
	return n, c.err
}

// Close writes the partial line as it shows, without a newline; w stays open.
func (c *Writer) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	from := c.alt
	c.alt = Off
	c.screenSwitched(from)
	c.out = c.takeLine(c.out)
	c.dropping = false
	c.flush()
	return c.err
}

// onScreenOnly: what comes now only shows on the alternate screen, and is no output.
func (c *Writer) onScreenOnly() bool { return c.alt == On && !c.keepScreens }

// screenSwitched does to the line what the switch of the alternate screen from `from` to c.alt does.
func (c *Writer) screenSwitched(from Mode) {
	switch {
	case c.keepScreens:
	case c.alt == On && from != On:
		c.mainLine, c.line = c.line, line{}
	case c.alt == Off && from == On:
		c.line = c.mainLine
	}
}

// Pending is the partial line shown so far, a cut-off character left out.
func (c *Writer) Pending() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.line.appendText(nil))
}

// TakePendingIf, if is(Pending()), returns that line, taken out of the
// output, and drops what follows up to the next '\n', in one step: the
// question asked of the human ("[sudo] password for u: ") and the answer.
func (c *Writer) TakePendingIf(is func(pending string) bool) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !is(string(c.line.appendText(nil))) {
		return "", false
	}
	c.dropping = true
	return string(c.takeLine(nil)), true
}

// takeLine appends the line, a cut-off character included, to dst and
// starts a new one, an open sequence dropped.
func (c *Writer) takeLine(dst []byte) []byte {
	c.putPartialRune()
	dst = c.line.appendText(dst)
	c.line.reset()
	c.state = ground
	return dst
}

// Line is the line being shown, where a REPL's prompt is looked for, up
// to the cursor at least (a prompt's space), and the cursor's column.
func (c *Writer) Line() (string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return string(c.line.appendUpTo(nil, c.line.col)), c.line.col
}

// SetLine starts the line over with text, the cursor at column col: a
// REPL's prompt line, known from an earlier read or tmux.
func (c *Writer) SetLine(text string, col int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.line.reset()
	for _, r := range text {
		c.line.put(cellOf([]byte(string(r))))
	}
	c.line.col = col
	c.state, c.npartial = ground, 0
}

// Settled reports whether no escape sequence or character is half read.
func (c *Writer) Settled() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.settled()
}

func (c *Writer) settled() bool { return c.state == ground && c.npartial == 0 }

// Paste is the bracketed paste mode: Unknown mid-sequence, from if never switched.
func (c *Writer) Paste(from Mode) Mode {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.settled() {
		return Unknown
	}
	return cmp.Or(c.paste, from)
}

// String returns the clean text of a whole terminal output.
func String(s string) string { return clean(s, false) }

// ScreensString is String with what full-screen programs showed kept, as text of the main
// screen: what a pager the user ran showed (the history's --output).
func ScreensString(s string) string { return clean(s, true) }

func clean(s string, keepScreens bool) string {
	var b bytes.Buffer
	c := &Writer{w: &b, keepScreens: keepScreens}
	c.Write([]byte(s)) // a bytes.Buffer does not fail
	c.Close()
	return b.String()
}

// passCleanLines, the fast path for plain output, writes the lines at the
// start of p that need no interpreting straight to w.
func (c *Writer) passCleanLines(p []byte) []byte {
	for {
		clean := cleanPrefix(p)
		if end := bytes.LastIndexByte(p[:clean], '\n') + 1; end > 0 {
			c.flush()
			c.write(p[:end])
			p, clean = p[end:], clean-end
		}
		// A plain line ending in "\r\n" or "\r\r\n" (a second pty: sudo,
		// ssh -t) is clean without its "\r"s.
		rest := bytes.TrimLeft(p[clean:], "\r")
		if len(rest) == 0 || rest[0] != '\n' {
			return p
		}
		c.out = append(c.out, p[:clean]...)
		c.newline()
		p = rest[1:]
	}
}

// interpret runs the terminal over p up to the end of the line.
func (c *Writer) interpret(p []byte) []byte {
	for i := 0; i < len(p); {
		b := p[i]
		switch {
		case c.state == ground && b == '\n':
			c.endLine()
			return p[i+1:]
		case c.state != ground || b < 0x20 || b == 0x7f:
			c.step(b)
			i++
		case b < 0x80:
			end := i + 1
			for end < len(p) && p[end] >= 0x20 && p[end] < 0x7f {
				end++
			}
			c.line.putASCII(p[i:end])
			i = end
		default:
			i += c.putRune(p[i:])
		}
	}
	return nil
}

// step reads a control or a byte of a sequence, and does to the line what it says.
func (c *Writer) step(b byte) {
	alt := c.alt
	do := c.parser.step(b)
	n := max(1, c.seq.arg) // a CSI's count or column: absent or 0 means 1
	switch do {
	case '\n':
		c.endLine()
	case '\r':
		c.line.moveTo(0)
	case '\b':
		c.line.moveTo(c.line.col - 1)
	case '\t':
		c.line.put('\t')
	case 'K', 'J': // EL; ED, which erases the line as a part of the screen
		c.line.erase(c.seq.arg)
	case 'G': // CHA, 1-based
		c.line.moveTo(n - 1)
	case 'C': // CUF
		c.line.moveTo(c.line.col + n)
	case 'D': // CUB
		c.line.moveTo(c.line.col - n)
	case 'P': // DCH
		c.line.deleteCells(n)
	case 'X': // ECH
		c.line.blankOut(c.line.col, c.line.col+n)
	case '@': // ICH
		c.line.insertBlanks(n)
	}
	if c.alt != alt {
		c.screenSwitched(alt)
	}
}

// putRune puts p's first character on the line (an invalid byte is one).
func (c *Writer) putRune(p []byte) int {
	if !utf8.FullRune(p) {
		c.npartial = copy(c.partial[:], p)
		return len(p)
	}
	_, size := utf8.DecodeRune(p)
	c.line.put(cellOf(p[:size]))
	return size
}

// finishRune completes the character the previous Write cut off.
func (c *Writer) finishRune(p []byte) []byte {
	n := c.npartial
	if n == 0 {
		return p
	}
	seq := c.partial[:n+copy(c.partial[n:], p)]
	if !utf8.FullRune(seq) {
		c.npartial = len(seq)
		return nil
	}
	if _, size := utf8.DecodeRune(seq); size > 1 {
		c.line.put(cellOf(seq[:size]))
		c.npartial = 0
		return p[size-n:]
	}
	c.putPartialRune() // invalid UTF-8: p is read afresh, as in one Write
	return p
}

// putPartialRune puts a cut-off character on the line as invalid UTF-8.
func (c *Writer) putPartialRune() {
	for _, b := range c.partial[:c.npartial] {
		c.line.put(cell(b))
	}
	c.npartial = 0
}

func (c *Writer) endLine() {
	if c.onScreenOnly() {
		c.line.reset()
		return
	}
	c.out = c.line.appendText(c.out)
	c.line.reset()
	c.newline()
}

func (c *Writer) newline() {
	c.out = append(c.out, '\n')
	if len(c.out) >= flushSize {
		c.flush()
	}
}

func (c *Writer) flush() {
	if len(c.out) > 0 {
		c.write(c.out)
	}
	if cap(c.out) > 2*flushSize {
		c.out = nil // it held a huge line: let it go
	}
	c.out = c.out[:0]
}

func (c *Writer) write(p []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(p)
	if err == nil && n < len(p) {
		err = io.ErrShortWrite
	}
	c.err = err
}
