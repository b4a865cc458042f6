package repl

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// lineScreen turns a REPL's raw terminal output into the text lines a
// human sees. REPLs redraw their input line with escape sequences (node
// rewrites the whole line on every change, colours its results) and
// return the cursor with "\r"; the agent wants the text, and the prompt
// check needs the line the cursor sits on. Only the current line is
// emulated: a line is final once the output moves past it with "\n"
// (the extractor has already turned the tty's "\r\n" into "\n").
type lineScreen struct {
	mu      sync.Mutex
	cells   []rune
	col     int
	state   escState
	params  []byte
	partial []byte // an incomplete UTF-8 sequence split across chunks
	// onLine receives every finished line, without its "\n".
	onLine func(string)
	// paste is the bracketed paste mode: the relay's as of our first
	// byte, then switched by what the REPL prints.
	paste markers.Mode
	// own: the current line is what the stream made it, from a known
	// start (a saved view, the REPL's START, or a newline since a reset
	// from tmux's capture), so it may be saved as the next call's view.
	own bool
}

type escState int

const (
	ground    escState = iota
	escape             // after ESC
	csi                // ESC [ ... final byte
	osc                // ESC ] ... BEL or ESC \
	oscEscape          // ESC inside an OSC: the ST's ESC \
	charset            // ESC ( X and friends: one more byte
)

// reset starts the current line over with text, the cursor at column col
// (from tmux: what the line showed before our stream began).
func (s *lineScreen) reset(text string, col int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cells = []rune(text)
	s.col = col
	s.pad()
	s.own = false
}

// restore starts the current line over from a view saved by an earlier
// call at the very point of the stream where ours starts.
func (s *lineScreen) restore(cells string, col int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cells = []rune(cells)
	s.col = max(0, col)
	s.pad()
	s.own = true
}

// view is the current line to save for the next call: its cells and the
// cursor column, when the line is the stream's own and no sequence is
// half read.
func (s *lineScreen) view() (cells string, col int, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.own || s.state != ground || len(s.partial) > 0 {
		return "", 0, false
	}
	return string(s.cells), s.col, true
}

// pasteMode is the bracketed paste mode, unknown in the middle of an
// escape sequence (the switch may be the one coming).
func (s *lineScreen) pasteMode() markers.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state != ground || s.paste == "" {
		return markers.Unknown
	}
	return s.paste
}

// cursorLine is the current line as the human sees it, up to the cursor
// at least (so a prompt's trailing space counts), and the cursor column.
func (s *lineScreen) cursorLine() (string, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.text(), s.col
}

func (s *lineScreen) text() string {
	end := len(s.cells)
	for end > s.col && s.cells[end-1] == ' ' {
		end--
	}
	return string(s.cells[:end])
}

func (s *lineScreen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(p)
	if len(s.partial) > 0 {
		p = append(s.partial, p...)
		s.partial = nil
	}
	for len(p) > 0 {
		r, size := utf8.DecodeRune(p)
		if r == utf8.RuneError && size <= 1 && !utf8.FullRune(p) {
			s.partial = append([]byte(nil), p...)
			break
		}
		s.feed(r)
		p = p[size:]
	}
	return n, nil
}

func (s *lineScreen) feed(r rune) {
	switch s.state {
	case escape:
		s.afterEscape(r)
	case csi:
		if r >= 0x40 && r <= 0x7e {
			s.state = ground
			s.control(r, s.params)
			s.params = s.params[:0]
		} else if r < 0x80 {
			s.params = append(s.params, byte(r))
		}
	case osc:
		switch r {
		case '\a':
			s.state = ground
		case 0x1b:
			s.state = oscEscape
		}
	case oscEscape:
		s.state = ground
	case charset:
		s.state = ground
	default:
		s.plain(r)
	}
}

func (s *lineScreen) afterEscape(r rune) {
	switch r {
	case '[':
		s.state = csi
	case ']', 'P', '_', '^': // OSC, DCS, APC, PM: all end with BEL or ST
		s.state = osc
	case '(', ')', '*', '+', '#', '%':
		s.state = charset
	case 'c': // RIS, a full reset: modes off
		s.state, s.paste = ground, markers.Off
	default:
		s.state = ground
	}
}

func (s *lineScreen) plain(r rune) {
	switch {
	case r == 0x1b:
		s.state = escape
	case r == '\n':
		line := s.text()
		s.cells, s.col, s.own = s.cells[:0], 0, true
		if s.onLine != nil {
			s.onLine(line)
		}
	case r == '\r':
		s.col = 0
	case r == '\b':
		s.col = max(0, s.col-1)
	case r == '\t':
		s.col = (s.col/8 + 1) * 8
		s.pad()
	case r < 0x20 || r == 0x7f:
		// BEL and other controls show nothing.
	default:
		s.pad()
		if s.col < len(s.cells) {
			s.cells[s.col] = r
		} else {
			s.cells = append(s.cells, r)
		}
		s.col++
	}
}

// pad fills the line with blanks up to the cursor.
func (s *lineScreen) pad() {
	for len(s.cells) < s.col {
		s.cells = append(s.cells, ' ')
	}
}

// control applies the CSI sequences line editors use on the current
// line; the others (colours, modes, moves to other lines) change no text
// of it.
func (s *lineScreen) control(final rune, params []byte) {
	if len(params) > 0 && (params[0] == '?' || params[0] == '>' || params[0] == '=') {
		// Private modes (bracketed paste, cursor keys...) change no text.
		if final == 'h' || final == 'l' {
			s.paste = markers.ModeSwitch(params, final == 'h', s.paste, []string{"2004"})
		}
		return
	}
	n := firstParam(params)
	switch final {
	case 'G', '`': // to column n
		s.col = max(1, n) - 1
	case 'C': // right
		s.col += max(1, n)
	case 'D': // left
		s.col = max(0, s.col-max(1, n))
	case 'K', 'J': // erase in line (J: in display, which includes the line)
		s.erase(n)
	case 'P': // delete characters
		if s.col < len(s.cells) {
			end := min(len(s.cells), s.col+max(1, n))
			s.cells = append(s.cells[:s.col], s.cells[end:]...)
		}
	case '@': // insert blanks
		if s.col < len(s.cells) {
			blanks := []rune(strings.Repeat(" ", max(1, n)))
			s.cells = append(s.cells[:s.col], append(blanks, s.cells[s.col:]...)...)
		}
	case 'X': // erase characters
		for i := s.col; i < min(len(s.cells), s.col+max(1, n)); i++ {
			s.cells[i] = ' '
		}
	}
}

func (s *lineScreen) erase(mode int) {
	switch mode {
	case 0: // from the cursor to the end
		if s.col < len(s.cells) {
			s.cells = s.cells[:s.col]
		}
	case 1: // from the start to the cursor
		for i := 0; i < min(len(s.cells), s.col+1); i++ {
			s.cells[i] = ' '
		}
	default: // all of it
		s.cells = s.cells[:0]
	}
}

// firstParam is the first numeric parameter of a CSI sequence, 0 when
// absent.
func firstParam(params []byte) int {
	first, _, _ := strings.Cut(string(params), ";")
	n, _ := strconv.Atoi(first)
	return n
}
