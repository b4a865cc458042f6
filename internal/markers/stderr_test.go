package markers_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// readStderr feeds chunks read from the stderr fifo to a StderrStream for
// ourID, then flushes it, as ptysend does at the end of a call.
func readStderr(t *testing.T, chunks ...string) (out string, done bool) {
	t.Helper()
	var b bytes.Buffer
	s := markers.NewStderrStream(ourID, &b)
	buf := make([]byte, 0, 64)
	for _, c := range chunks {
		buf = append(buf[:0], c...)
		if n, err := s.Write(buf); n != len(c) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", c, n, err)
		}
		for i := range buf {
			buf[i] = '#' // the caller reuses its buffer
		}
	}
	done = s.Done()
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	return b.String(), done
}

func TestStderrStreamPassesTheCommandsBytesAndFindsTheToken(t *testing.T) {
	token := markers.StderrDone(ourID)
	cases := []struct {
		name   string
		stream string
		want   string
		done   bool
	}{
		{"stderr then the token", "err\n", "err\n", false},
		{"the token ends it", "err\n" + token, "err\n", true},
		{"binary bytes, TABs, CRs, no trailing newline", "a\tb\r\x00\xff\x1b[31mc", "a\tb\r\x00\xff\x1b[31mc", false},
		{"nothing but the token", token, "", true},
		{"a background job's stderr after the token", "a" + token + "late\n", "alate\n", true},
		{"a second token is stderr", token + token, token, true},
		{"the token of another id is stderr", markers.StderrDone(otherID) + "x", markers.StderrDone(otherID) + "x", false},
		{"a cut-short token at the end is stderr", "x" + token[:len(token)-1], "x" + token[:len(token)-1], false},
		{"a frame-shaped run is stderr", string(markers.AppendStderrFrame(nil, ourID, []byte("f"))), string(markers.AppendStderrFrame(nil, ourID, []byte("f"))), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check := func(how string, out string, done bool) {
				t.Helper()
				if out != c.want || done != c.done {
					t.Errorf("%s: got %q, done %v; want %q, done %v", how, out, done, c.want, c.done)
				}
			}
			out, done := readStderr(t, c.stream)
			check("one chunk", out, done)
			var bytewise []string
			for i := range len(c.stream) {
				bytewise = append(bytewise, c.stream[i:i+1])
				out, done := readStderr(t, c.stream[:i], c.stream[i:])
				check(fmt.Sprintf("split at %d", i), out, done)
			}
			out, done = readStderr(t, bytewise...)
			check("byte by byte", out, done)
		})
	}
}

// What cannot be the token goes out at once: a prompt without a newline
// must reach the human while the command waits for the answer.
func TestStderrStreamPassesAPromptOnAtOnce(t *testing.T) {
	var b bytes.Buffer
	s := markers.NewStderrStream(ourID, &b)
	s.Write([]byte("Continue? [y/N] "))
	if b.String() != "Continue? [y/N] " {
		t.Fatalf("after the prompt, passed on %q", b.String())
	}
	s.Write([]byte("\x1b]6973;ptyb"))
	if b.String() != "Continue? [y/N] " {
		t.Fatalf("a possible start of the token went out: %q", b.String())
	}
}

func TestStderrFrameHoldsThePieceBetweenItsMarkers(t *testing.T) {
	frame := string(markers.AppendStderrFrame([]byte("kept "), ourID, []byte("piece\n")))
	if !strings.HasPrefix(frame, "kept \x1b]6973;ptybridge;R;"+string(ourID)+"\a") ||
		!strings.HasSuffix(frame, "piece\n\x1b]6973;ptybridge;r;"+string(ourID)+"\a") {
		t.Fatalf("frame %q", frame)
	}
}
