package repl

import (
	"io"
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// output decides which finished screen lines are the REPL's response.
// The REPL echoes each typed line after a prompt, maybe between output
// lines (python runs line 1 of "a=1\nprint(a)" before it reads line 2):
// a line that is the next expected input behind a prompt is an echo.
type output struct {
	mu           sync.Mutex
	w            io.Writer
	prompt, cont *regexp.Regexp
	pending      []string // typed lines whose echo has not come yet
	stripCtrlC   bool
	written      []byte // the response so far, its end when long (keepResponse)
}

// keepResponse is how much of a response is kept for its error pattern (errors.go): a report
// of an error comes at its end.
const keepResponse = 1 << 20

func (o *output) expect(lines ...string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pending = append(o.pending, lines...)
}

func (o *output) echoed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.pending) == 0
}

// interrupted: Ctrl-C discards typed input that was not read yet, and
// the terminal's "^C" echo is not the REPL's output.
func (o *output) interrupted() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pending, o.stripCtrlC = nil, true
}

func (o *output) line(s string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.pending) > 0 && o.isEcho(s, o.pending[0]) {
		o.pending = o.pending[1:]
		return
	}
	o.writeLocked(s + "\n")
}

// write passes on output that is no line of its own: what the prompt was
// printed after, on the same line (output without a final newline).
func (o *output) write(s string) {
	if s == "" {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.writeLocked(s)
}

func (o *output) writeLocked(s string) {
	if o.stripCtrlC {
		s = strings.ReplaceAll(s, "^C", "")
	}
	io.WriteString(o.w, s)
	o.written = append(o.written, s...)
	if len(o.written) > 2*keepResponse {
		o.written = append(o.written[:0], o.written[len(o.written)-keepResponse:]...)
	}
}

// response is what was written of the response (its end when long).
func (o *output) response() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return string(o.written)
}

// isEcho reports whether screen line s shows typed line input: after a
// prompt, or alone (a line editor showing a multi-line paste as one edit).
// Blanks do not count: TABs show as spaces; auto-indenting editors add some.
func (o *output) isEcho(s, input string) bool {
	rest := o.stripPrompts(s)
	if rest == s && squeeze(input) == "" {
		return false // an empty line's echo is a bare prompt
	}
	return squeeze(rest) == squeeze(input)
}

// stripPrompts removes the prompts at the start of s. There can be
// several: a REPL reading in cooked mode gets lines the terminal echoed
// already, and prints its prompts for them one after the other.
func (o *output) stripPrompts(s string) string {
	for {
		at := leadingMatch(o.prompt, s)
		if at <= 0 {
			at = leadingMatch(o.cont, s)
		}
		if at <= 0 {
			return s
		}
		s = s[at:]
	}
}

// leadingMatch is where a match of re at the start of s ends, or -1.
func leadingMatch(re *regexp.Regexp, s string) int {
	if re == nil {
		return -1
	}
	if loc := re.FindStringIndex(s); loc != nil && loc[0] == 0 {
		return loc[1]
	}
	return -1
}

func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}
