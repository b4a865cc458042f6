package markers_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/ptybridge/ptybridge/internal/markers"
)

const (
	ourID   markers.ID = "0123456789abcdef"
	otherID markers.ID = "fedcba9876543210"
)

// onlcr does what the pane's tty does to everything the command writes:
// every "\n" reaches the raw stream as "\r\n".
func onlcr(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") }

// endPrefix is the END marker of id up to (not including) its status.
func endPrefix(id markers.ID) string { return strings.TrimSuffix(markers.End(id, 0), "0\a") }

// call is the raw pane stream of our call: before (the echo of the typed
// line, prompt escapes), START, what the command printed as the tty passes
// it on, END with status, and after (the next prompt).
func call(before, out string, status int, after string) string {
	return before + markers.Start(ourID) + onlcr(out) + markers.End(ourID, status) + after
}

// errFrame is a piece of the command's stderr as ptysend frames it on
// the terminal for id, and as the tty passes it on.
func errFrame(id markers.ID, piece string) string {
	return onlcr(string(markers.AppendStderrFrame(nil, id, []byte(piece))))
}

// result is everything an Extractor reports after a stream.
type result struct {
	out     string
	started bool
	done    bool
	status  int
}

// finished is the result of a call that printed out and exited with status.
func finished(out string, status int) result {
	return result{out: out, started: true, done: true, status: status}
}

// feed writes chunks, in order, to a fresh Extractor for ourID.
func feed(t *testing.T, chunks ...string) result {
	t.Helper()
	cs := make([][]byte, len(chunks))
	for i, c := range chunks {
		cs[i] = []byte(c)
	}
	return feedChunks(t, cs)
}

// feedChunks writes cs to a fresh Extractor for ourID the way a reader
// loop does: through one buffer that is reused (here: scribbled over)
// after every Write, so an extractor keeping a reference to it would show.
func feedChunks(t *testing.T, cs [][]byte) result {
	t.Helper()
	var out bytes.Buffer
	e := markers.NewExtractor(ourID, &out)
	buf := make([]byte, 0, 4096)
	for _, c := range cs {
		buf = append(buf[:0], c...)
		n, err := e.Write(buf)
		if n != len(c) || err != nil {
			t.Fatalf("Write(%q) = %d, %v; want %d, nil", c, n, err, len(c))
		}
		for i := range buf {
			buf[i] = '#'
		}
	}
	return result{out: out.String(), started: e.Started(), done: e.Done(), status: e.Status()}
}

// check compares a result with the wanted one; how says how the stream
// was chunked, for the failure message.
func check(t *testing.T, how string, got, want result) {
	t.Helper()
	if got.out != want.out {
		t.Errorf("%s: extracted %q, want %q", how, abbrev(got.out), abbrev(want.out))
	}
	if got.started != want.started {
		t.Errorf("%s: Started() = %v, want %v", how, got.started, want.started)
	}
	if got.done != want.done {
		t.Errorf("%s: Done() = %v, want %v", how, got.done, want.done)
	}
	if want.done && got.status != want.status {
		t.Errorf("%s: Status() = %d, want %d", how, got.status, want.status)
	}
}

// abbrev shortens long strings in failure messages to their ends.
func abbrev(s string) string {
	const keep = 300
	if len(s) <= 2*keep {
		return s
	}
	return s[:keep] + "<…" + strconv.Itoa(len(s)-2*keep) + " bytes…>" + s[len(s)-keep:]
}

// bytewise splits s into chunks of one byte each.
func bytewise(s string) []string {
	chunks := make([]string, len(s))
	for i := 0; i < len(s); i++ {
		chunks[i] = s[i : i+1]
	}
	return chunks
}
