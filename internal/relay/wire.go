package relay

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// Every message between a relay and its clients is one line of words, the
// first naming the message; a "data" message ("data STREAM OFFSET LENGTH")
// is followed by LENGTH bytes. A call's turn (turns.go):
//
//	turn CALL  ->  queued AHEAD SINCE CALL ..., hello VERSION PANE PID STATE SHELL VICMD RELAY OFFSET PASTE ALT COLUMN
//	then the stream as data messages, and the call's requests:
//	type KEYS    runs ID COMMAND    type-if OFFSET KEYS -> typed | moved OFFSET
//
// Queries and a job's requests are listed in queries.go and jobserve.go;
// any may be answered "error TEXT". Text travels as "x" and its hex digits,
// so that any bytes (even none) make one word; numbers in decimal, times as
// Unix nanoseconds (0: none). Not JSON: a query is a whole ptysend process,
// to cost at most half a trivial call, and encoding/json's first use in a
// fresh one cost 0.2-0.6 ms of a ~4 ms --status (scripts/bench).

// message is one message as read: its words, and a data message's bytes
// (or, as readHeader leaves them, their number).
type message struct {
	words []string
	data  []byte
	size  int
	err   error // the first malformed word asked for
}

func send(w io.Writer, verb string, fields ...any) error {
	_, err := w.Write(appendMessage(nil, verb, fields...))
	return err
}

func appendMessage(b []byte, verb string, fields ...any) []byte {
	b = append(b, verb...)
	for _, f := range fields {
		b = append(b, ' ')
		switch v := f.(type) {
		case string:
			b = append(b, 'x')
			b = hex.AppendEncode(b, []byte(v))
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case int64:
			b = strconv.AppendInt(b, v, 10)
		case bool:
			b = strconv.AppendBool(b, v)
		case time.Time:
			var n int64 // 0: none
			if !v.IsZero() {
				n = v.UnixNano()
			}
			b = strconv.AppendInt(b, n, 10)
		case word:
			b = append(b, v...)
		default:
			panic(fmt.Sprintf("relay: cannot encode %T", f))
		}
	}
	return append(b, '\n')
}

// word is a field sent as it is: a name that is known to be one word.
type word string

func appendData(b []byte, stream string, offset int64, data []byte) []byte {
	b = appendMessage(b, "data", word(stream), offset, len(data))
	return append(b, data...)
}

const (
	maxLine = 64 << 10 // a message's line: a typed text travels in pieces
	maxData = 64 << 20 // a data message's bytes
)

func readMessage(r *bufio.Reader) (message, error) {
	m, err := readHeader(r)
	if err == nil && m.size > 0 {
		m.data = make([]byte, m.size)
		_, err = io.ReadFull(r, m.data)
	}
	return m, err
}

// readHeader reads one message's line, and leaves a data message's bytes
// to be read: a call's stream goes from the socket into the caller's
// buffer, not through one of its own per message.
func readHeader(r *bufio.Reader) (message, error) {
	line, err := r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		return message{}, errors.New("a message longer than the protocol allows")
	}
	if err != nil {
		if err == io.EOF && len(line) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return message{}, err
	}
	m := message{words: strings.Fields(string(line))}
	if len(m.words) == 0 {
		return message{}, errors.New("an empty message")
	}
	if m.verb() == "data" {
		n := m.int(len(m.words) - 1)
		if m.err != nil || n < 0 || n > maxData {
			return message{}, fmt.Errorf("a malformed message %q", line)
		}
		m.size = n
	}
	return m, nil
}

func (m *message) verb() string { return m.words[0] }

// field is word i (1: the first after the verb). Like the other readers
// of a field, it notes in m.err the first malformed or missing one.
func (m *message) field(i int) string {
	if i >= len(m.words) {
		m.fail(fmt.Errorf("%s: no field %d", m.verb(), i))
		return ""
	}
	return m.words[i]
}

func (m *message) fail(err error) {
	if m.err == nil {
		m.err = err
	}
}

func (m *message) int64(i int) int64 {
	n, err := strconv.ParseInt(m.field(i), 10, 64)
	if err != nil {
		m.fail(fmt.Errorf("%s: field %d: %w", m.verb(), i, err))
	}
	return n
}

func (m *message) int(i int) int { return int(m.int64(i)) }

func (m *message) bool(i int) bool { return m.field(i) == "true" }

func (m *message) time(i int) time.Time {
	if n := m.int64(i); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

func (m *message) text(i int) string {
	s, ok := strings.CutPrefix(m.field(i), "x")
	b, err := hex.DecodeString(s)
	if !ok || err != nil {
		m.fail(fmt.Errorf("%s: field %d is no text", m.verb(), i))
	}
	return string(b)
}

func (m *message) fieldCount(n int) bool {
	if len(m.words) != n+1 {
		m.fail(fmt.Errorf("%s: %d fields, want %d", m.verb(), len(m.words)-1, n))
		return false
	}
	return true
}

type errorMessage string

func (e errorMessage) Error() string { return string(e) }
