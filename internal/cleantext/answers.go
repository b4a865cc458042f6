package cleantext

import (
	"bytes"
	"io"
)

// AnswerEchoes passes a command's output on to W without the terminal's echo of its answers. While
// the command runs, the terminal is in cooked mode with ECHO on: the answer that a query in the
// output makes tmux type into the input is echoed into the output (ESC as "^["), which is none of
// the command's. After each query (the echo comes only after it), the first whole echo of an
// answer is taken out; the human's keys' echoes ("^[[A" for an arrow) are no answers and stay.
// An echo that the terminal split around the command's output (its buffer full at that instant)
// is not recognized, nor one without ECHOCTL (the answer's own bytes): they stay.
type AnswerEchoes struct {
	W        io.Writer
	expected int // queries seen whose answer's echo has not come
	queried  bool
	held     []byte // a sequence or echo cut by the end of a write
	scratch  []byte
	err      error
}

// maxExpected bounds the answers awaited: a query tmux leaves unanswered never gets one.
const maxExpected = 1024

// Queried reports whether the output held a query: the terminal's input holds its answer.
func (a *AnswerEchoes) Queried() bool { return a.queried }

// Write passes p on, holding back at most an unfinished sequence (maxString bytes and a bit).
func (a *AnswerEchoes) Write(p []byte) (int, error) {
	if a.err != nil {
		return 0, a.err
	}
	data := p
	if len(a.held) > 0 {
		a.scratch = append(append(a.scratch[:0], a.held...), p...)
		a.held, data = a.held[:0], a.scratch
	}
	start, i := 0, 0
	for {
		j := a.next(data, i)
		if j < 0 {
			break
		}
		sp := raw
		if data[j] == '^' {
			sp = echoed
		}
		n, kind, cut := seqAt(data[j:], sp)
		switch {
		case cut:
			a.emit(data[start:j])
			a.held = append(a.held, data[j:]...)
			return len(p), a.err
		case sp == raw && kind == query:
			a.queried, a.expected = true, min(a.expected+1, maxExpected)
		case sp == echoed && kind == answer:
			a.emit(data[start:j])
			start = j + n
			a.expected--
		}
		i = j + max(n, 1)
	}
	a.emit(data[start:])
	return len(p), a.err
}

// next is where a sequence may start at or after i: an ESC, or, while an answer is awaited, "^".
func (a *AnswerEchoes) next(data []byte, i int) int {
	starts := "\x1b"
	if a.expected > 0 {
		starts = "\x1b^"
	}
	if j := bytes.IndexAny(data[i:], starts); j >= 0 {
		return i + j
	}
	return -1
}

func (a *AnswerEchoes) emit(p []byte) {
	if len(p) > 0 && a.err == nil {
		_, a.err = a.W.Write(p)
	}
}

// Flush passes on what was held back: the output is over (or being cut short).
func (a *AnswerEchoes) Flush() error {
	held := a.held
	a.held = nil
	a.emit(held)
	return a.err
}

// SyncQuery, written to the terminal, ends any string sequence the output left open (ST), then
// asks for a status, the secondary attributes and a status again: the answer to the three comes
// after the answers to every query before them, in this order, which output is all but certain
// never to ask in a row.
const SyncQuery = "\x1b\\\x1b[5n\x1b[>c\x1b[5n"

// Synced reports whether in (the terminal's input) holds the answer to SyncQuery.
func Synced(in []byte) bool {
	status := []byte("\x1b[0n")
	for _, rest, ok := bytes.Cut(in, status); ok; _, rest, ok = bytes.Cut(rest, status) {
		n, kind, _ := seqAt(rest, raw)
		if kind == answer && bytes.HasPrefix(rest, []byte("\x1b[>")) && rest[n-1] == 'c' &&
			bytes.HasPrefix(rest[n:], status) {
			return true
		}
	}
	return false
}

// WithoutAnswers is in (the terminal's input) without the answers that tmux typed: what is left
// are keys the human typed, in order. A sequence cut at the end is a key (a lone Esc) and stays.
func WithoutAnswers(in []byte) []byte {
	var keys []byte
	for len(in) > 0 {
		n, kind, _ := seqAt(in, raw)
		if kind != answer {
			n = max(n, 1) // a key, or a sequence that is none of tmux's answers
			keys = append(keys, in[:n]...)
		}
		in = in[n:]
	}
	return keys
}
