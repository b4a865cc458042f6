package markers_test

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// What a pane typically shows around a call: the echo of the typed line
// (which names the script, and so the id, but holds no marker), the
// shell's own escape sequences, and the next prompt.
const (
	typedEcho  = "\x1b]133;A\auser@host:~$  . '/run/ptybridge/0123456789abcdef.sh'\r\n\x1b]133;C\a"
	nextPrompt = "\x1b]133;D;0\a\x1b]0;user@host: ~\a\r\nuser@host:~$ "
)

type extractCase struct {
	name   string
	stream string // the raw pane stream
	want   result
}

// extractCases are checked with the stream in one chunk and split at
// every position (see TestExtractorSplits).
func extractCases() []extractCase {
	longLine := strings.Repeat("0123456789", 1000)
	var manyLines strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&manyLines, "line %04d\n", i)
	}
	// our END prefix followed by something other than digits and BEL: not
	// our marker, so output.
	notOurs := func(garbage string) extractCase {
		out := "before " + endPrefix(ourID) + garbage + " after\n"
		return extractCase{
			name:   fmt.Sprintf("END prefix followed by %q is output", garbage),
			stream: call(typedEcho, out, 9, nextPrompt),
			want:   finished(out, 9),
		}
	}
	cases := []extractCase{
		{
			name:   "echo of the typed line and the next prompt are dropped",
			stream: call(typedEcho, "hello\n", 0, nextPrompt),
			want:   finished("hello\n", 0),
		},
		{
			name:   "nothing around the markers",
			stream: call("", "hello\n", 0, ""),
			want:   finished("hello\n", 0),
		},
		{
			name:   "output without a trailing newline",
			stream: call(typedEcho, "no newline at the end", 0, nextPrompt),
			want:   finished("no newline at the end", 0),
		},
		{
			name:   "empty output",
			stream: call(typedEcho, "", 0, nextPrompt),
			want:   finished("", 0),
		},
		{
			name:   "only a newline",
			stream: call(typedEcho, "\n", 0, nextPrompt),
			want:   finished("\n", 0),
		},
		{
			name:   "blank lines",
			stream: call(typedEcho, "\n\n\na\n\n", 0, nextPrompt),
			want:   finished("\n\n\na\n\n", 0),
		},
		{
			name:   "tabs",
			stream: call(typedEcho, "col1\tcol2\t\tcol3\n\t\n\t", 0, nextPrompt),
			want:   finished("col1\tcol2\t\tcol3\n\t\n\t", 0),
		},
		{
			name:   "UTF-8 CJK and emoji are byte-exact",
			stream: call(typedEcho, "日本語の文字列\n한국어\n中文🎉👍🏽👨‍👩‍👧 é\n", 0, nextPrompt),
			want:   finished("日本語の文字列\n한국어\n中文🎉👍🏽👨‍👩‍👧 é\n", 0),
		},
		{
			name:   "bytes that are not UTF-8 are byte-exact",
			stream: call(typedEcho, "\xff\xfe\x80\xc3(\x00\n", 0, nextPrompt),
			want:   finished("\xff\xfe\x80\xc3(\x00\n", 0),
		},
		{
			name:   "the command's own escape sequences (colours, titles) are kept",
			stream: call(typedEcho, "\x1b[31mred\x1b[0m\n\x1b]0;title\a\x1b]\n", 0, nextPrompt),
			want:   finished("\x1b[31mred\x1b[0m\n\x1b]0;title\a\x1b]\n", 0),
		},
		{
			name:   "a 10,000-character line",
			stream: call(typedEcho, longLine+"\n", 0, nextPrompt),
			want:   finished(longLine+"\n", 0),
		},
		{
			name:   "many lines",
			stream: call(typedEcho, manyLines.String(), 0, nextPrompt),
			want:   finished(manyLines.String(), 0),
		},
		{
			name:   "bare CRs of a progress bar are kept",
			stream: call(typedEcho, "10%\r50%\r100%\rdone\n", 0, nextPrompt),
			want:   finished("10%\r50%\r100%\rdone\n", 0),
		},
		{
			name:   "the command's own CRLF (CR CR LF in the stream) comes out as CRLF",
			stream: typedEcho + markers.Start(ourID) + "a\r\r\nb\r\r\n" + markers.End(ourID, 0) + nextPrompt,
			want:   finished("a\r\nb\r\n", 0),
		},
		{
			name:   "CR as the last byte of the output",
			stream: call(typedEcho, "spinner\r", 0, nextPrompt),
			want:   finished("spinner\r", 0),
		},
		{
			name:   "runs of CRs and LFs",
			stream: call(typedEcho, "\r\r\n\n\r\n\r\r\r\n\r", 0, nextPrompt),
			want:   finished("\r\r\n\n\r\n\r\r\r\n\r", 0),
		},
		{
			name:   "ESC and BEL right before newlines",
			stream: call(typedEcho, "\x1b\n\x1b]\n\a\n\x1b]6973\n", 0, nextPrompt),
			want:   finished("\x1b\n\x1b]\n\a\n\x1b]6973\n", 0),
		},
		{
			name:   "an END marker of another id is output and does not end the call",
			stream: call(typedEcho, "x"+markers.End(otherID, 0)+"y\n", 4, nextPrompt),
			want:   finished("x"+markers.End(otherID, 0)+"y\n", 4),
		},
		{
			name:   "an END marker of another id alone never ends the call",
			stream: typedEcho + markers.Start(ourID) + "a\r\n" + markers.End(otherID, 0) + "b",
			want:   result{out: "a\n" + markers.End(otherID, 0) + "b", started: true},
		},
		{
			name:   "a START marker of another id is not ours",
			stream: markers.Start(otherID) + "another call\r\n" + markers.End(otherID, 1) + call(typedEcho, "ours\n", 0, nextPrompt),
			want:   finished("ours\n", 0),
		},
		{
			name:   "a START marker of another id does not start the call",
			stream: typedEcho + markers.Start(otherID) + "another call\r\n" + markers.End(ourID, 0) + nextPrompt,
			want:   result{},
		},
		{
			name:   "a START marker of ours with its id cut short is not ours",
			stream: typedEcho + strings.Replace(markers.Start(ourID), "def\a", "de\a", 1) + "x\r\n" + markers.End(ourID, 0),
			want:   result{},
		},
		{
			name:   "no START at all",
			stream: typedEcho + "just a prompt $ ",
			want:   result{},
		},
		{
			name:   "START without END yet",
			stream: typedEcho + markers.Start(ourID) + "partial\r\nline",
			want:   result{out: "partial\nline", started: true},
		},
		{
			name:   "START-like text in the output is output",
			stream: call(typedEcho, "\x1b]6973;ptybridge;S;\n"+markers.Start(otherID)+"\n", 0, nextPrompt),
			want:   finished("\x1b]6973;ptybridge;S;\n"+markers.Start(otherID)+"\n", 0),
		},
		{
			name:   "the END prefix of another id followed by a status is output",
			stream: call(typedEcho, endPrefix(otherID)+"0\a\n", 2, nextPrompt),
			want:   finished(endPrefix(otherID)+"0\a\n", 2),
		},
		notOurs("x\a"),
		notOurs("\a"),
		notOurs("1234\a"),
		notOurs("12;"),
		notOurs("-1\a"),
		notOurs("1\n"),
		notOurs("7"),
		notOurs(""),
		{
			name:   "END prefix followed by garbage, then our END right after",
			stream: typedEcho + markers.Start(ourID) + endPrefix(ourID) + "12" + markers.End(ourID, 5) + nextPrompt,
			want:   finished(endPrefix(ourID)+"12", 5),
		},
		{
			name:   "END prefix twice in a row",
			stream: typedEcho + markers.Start(ourID) + endPrefix(ourID) + markers.End(ourID, 6) + nextPrompt,
			want:   finished(endPrefix(ourID), 6),
		},
		{
			name:   "bytes after END are ignored, even another END and START",
			stream: call(typedEcho, "out\n", 3, "more\r\n"+markers.End(ourID, 7)+markers.Start(ourID)+"again\r\n"+nextPrompt),
			want:   finished("out\n", 3),
		},
		{
			name:   "status with leading zeros",
			stream: typedEcho + markers.Start(ourID) + "x" + endPrefix(ourID) + "007\a",
			want:   finished("x", 7),
		},
	}
	cases = append(cases, frameCases()...)
	for _, status := range []int{0, 1, 2, 127, 130, 255} {
		cases = append(cases, extractCase{
			name:   fmt.Sprintf("status %d", status),
			stream: call(typedEcho, "out\n", status, nextPrompt),
			want:   finished("out\n", status),
		})
	}
	return cases
}

// frameCases: the command's stderr, which ptysend writes to the terminal
// framed (see markers.AppendStderrFrame), is not stdout.
func frameCases() []extractCase {
	start, end := markers.Start(ourID), markers.End(ourID, 0)
	return []extractCase{
		{
			name:   "a frame of stderr between output is dropped",
			stream: call(typedEcho, "out 1\n", 0, nextPrompt)[:len(typedEcho+start)+len("out 1\r\n")] + errFrame(ourID, "err\n") + "out 2\r\n" + end,
			want:   finished("out 1\nout 2\n", 0),
		},
		{
			name:   "frames right after START and right before END",
			stream: typedEcho + start + errFrame(ourID, "first") + "x" + errFrame(ourID, "last\n") + end + nextPrompt,
			want:   finished("x", 0),
		},
		{
			name:   "frames back to back, one of them empty",
			stream: start + errFrame(ourID, "a\n") + errFrame(ourID, "") + errFrame(ourID, "b\tc\rd") + "out" + end,
			want:   finished("out", 0),
		},
		{
			name:   "a prompt without a newline, then the human's answer echoed",
			stream: start + errFrame(ourID, "Continue? [y/N] ") + "y\r\n" + "done\r\n" + end,
			want:   finished("y\ndone\n", 0),
		},
		{
			name:   "a frame between the command's CR and the tty's CRLF",
			stream: start + "a\r" + errFrame(ourID, "e\n") + "\r\n" + end,
			want:   finished("a\r\n", 0),
		},
		{
			name:   "a frame between CR and LF: gone as if never written",
			stream: start + "a\r" + errFrame(ourID, "e") + "\nb" + end,
			want:   finished("a\nb", 0),
		},
		{
			name:   "stderr holding our END marker does not end the call",
			stream: start + "x" + errFrame(ourID, markers.End(ourID, 3)) + "y" + markers.End(ourID, 4),
			want:   finished("xy", 4),
		},
		{
			name:   "stderr holding an opening marker of ours ends at the first end marker",
			stream: start + errFrame(ourID, string(markers.AppendStderrFrame(nil, ourID, nil))[:len(errFrame(ourID, ""))/2]+"z") + "out" + end,
			want:   finished("out", 0),
		},
		{
			name:   "a frame of another call (its background job's stderr) is dropped too",
			stream: start + "a" + errFrame(otherID, "theirs\n") + "b" + end,
			want:   finished("ab", 0),
		},
		{
			name:   "an opening marker with a cut-short id is output",
			stream: start + strings.Replace(errFrame(ourID, "x"), "def\a", "de\a", 1) + end,
			want:   finished(strings.Replace(errFrame(ourID, "x"), "def\a", "de\a", 1), 0),
		},
		{
			name:   "a frame ends only with the end marker of its own id",
			stream: start + string(opener) + "x" + errFrame(otherID, "")[len(errFrame(otherID, ""))/2:] + "y" + string(closer) + "z" + end,
			want:   finished("z", 0),
		},
		{
			name:   "an end marker alone is output",
			stream: start + "a" + errFrame(ourID, "")[len(errFrame(ourID, ""))/2:] + "b" + end,
			want:   finished("a"+errFrame(ourID, "")[len(errFrame(ourID, ""))/2:]+"b", 0),
		},
		{
			name:   "a frame before START is dropped with everything else there",
			stream: errFrame(ourID, "early") + call(typedEcho, "out\n", 0, nextPrompt),
			want:   finished("out\n", 0),
		},
		{
			name:   "an opening marker without its end yet holds what follows back",
			stream: start + "a" + errFrame(ourID, "cut short")[:len(errFrame(ourID, ""))/2+4],
			want:   result{out: "a", started: true},
		},
	}
}

func TestExtractorOneChunk(t *testing.T) {
	for _, tt := range extractCases() {
		t.Run(tt.name, func(t *testing.T) {
			check(t, "one chunk", feed(t, tt.stream), tt.want)
		})
	}
}

// The stream arrives in chunks of any size, so markers, "\r\n" pairs and
// UTF-8 sequences are split anywhere.
func TestExtractorSplits(t *testing.T) {
	for _, tt := range extractCases() {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.stream
			check(t, "one byte at a time", feed(t, bytewise(s)...), tt.want)
			for i := 0; i <= len(s) && !t.Failed(); i++ {
				check(t, fmt.Sprintf("split at %d", i), feed(t, s[:i], s[i:]), tt.want)
			}
			if len(s) > 300 {
				return
			}
			for i := 0; i <= len(s) && !t.Failed(); i++ {
				for j := i; j <= len(s) && !t.Failed(); j++ {
					check(t, fmt.Sprintf("split at %d and %d", i, j), feed(t, s[:i], s[i:j], s[j:]), tt.want)
				}
			}
		})
	}
}

// Chunk boundaries that matter, spelled out.
func TestExtractorChunkBoundaries(t *testing.T) {
	start, end := markers.Start(ourID), markers.End(ourID, 0)
	prefix := endPrefix(ourID)
	tests := []struct {
		name   string
		chunks []string
		want   result
	}{
		{
			name:   "CR at the end of a chunk, LF at the start of the next",
			chunks: []string{start + "a\r", "\nb\r", "\n" + end},
			want:   finished("a\nb\n", 0),
		},
		{
			name:   "the command's CR at the end of a chunk, the tty's CRLF in the next",
			chunks: []string{start + "a\r", "\r\n" + end},
			want:   finished("a\r\n", 0),
		},
		{
			name:   "the tty's CR alone in a chunk",
			chunks: []string{start + "a", "\r", "\n", end},
			want:   finished("a\n", 0),
		},
		{
			name:   "CR at the end of a chunk, END in the next",
			chunks: []string{start + "a\r", end},
			want:   finished("a\r", 0),
		},
		{
			name:   "CR at the end of a chunk, other output in the next",
			chunks: []string{start + "10%\r", "20%\r", "\n" + end},
			want:   finished("10%\r20%\n", 0),
		},
		{
			name:   "START split after its ESC",
			chunks: []string{typedEcho + "\x1b", start[1:] + "x" + end},
			want:   finished("x", 0),
		},
		{
			name:   "START split right before its BEL",
			chunks: []string{typedEcho + start[:len(start)-1], "\a" + "x" + end},
			want:   finished("x", 0),
		},
		{
			name:   "END split after its ESC",
			chunks: []string{start + "x\x1b", end[1:]},
			want:   finished("x", 0),
		},
		{
			name:   "END split before the status",
			chunks: []string{start + "x" + prefix, "0\a"},
			want:   finished("x", 0),
		},
		{
			name:   "END split inside the status",
			chunks: []string{start + "x" + prefix + "12", "7\a"},
			want:   finished("x", 127),
		},
		{
			name:   "END split before its BEL",
			chunks: []string{start + "x" + prefix + "130", "\a"},
			want:   finished("x", 130),
		},
		{
			name:   "END prefix at the end of a chunk, garbage in the next",
			chunks: []string{start + "x" + prefix, "oops\r\n", end},
			want:   finished("x"+prefix+"oops\n", 0),
		},
		{
			name:   "END prefix and digits at the end of a chunk, a newline in the next",
			chunks: []string{start + prefix + "12", "\r\n", end},
			want:   finished(prefix+"12\n", 0),
		},
		{
			name:   "empty chunks anywhere",
			chunks: []string{"", typedEcho, "", start, "", "x\r", "", "\n", "", end, ""},
			want:   finished("x\n", 0),
		},
		{
			name:   "a 4-byte emoji split in the middle",
			chunks: []string{start + "\xf0\x9f", "\x8e\x89\r\n" + end},
			want:   finished("🎉\n", 0),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, fmt.Sprintf("chunks %q", tt.chunks), feed(t, tt.chunks...), tt.want)
		})
	}
}

// An opening marker that no end marker follows within a frame's greatest
// length was not written by ptysend: it is output, and END after it ends
// the call, however the stream is chunked.
func TestExtractorTakesALoneOpeningMarkerForOutput(t *testing.T) {
	opener := errFrame(ourID, "")[:len(errFrame(ourID, ""))/2]
	filler := strings.Repeat("y", markers.MaxStderrFrame)
	stream := markers.Start(ourID) + "x" + opener + filler + markers.End(ourID, 2) + nextPrompt
	want := finished("x"+opener+filler, 2)
	check(t, "one chunk", feed(t, stream), want)
	var chunks []string
	for i := 0; i < len(stream); i += 1000 {
		chunks = append(chunks, stream[i:min(len(stream), i+1000)])
	}
	check(t, "chunks of 1000", feed(t, chunks...), want)
	// Its end right at the limit makes a frame; one byte later, output.
	body := strings.Repeat("z", markers.MaxStderrFrame-len(errFrame(ourID, "")))
	check(t, "a frame of the greatest length", feed(t, markers.Start(ourID)+errFrame(ourID, body)+markers.End(ourID, 0)), finished("", 0))
	long := errFrame(ourID, body+"z")
	check(t, "one byte longer", feed(t, markers.Start(ourID)+long+markers.End(ourID, 0)), finished(long, 0))
}

// Output is passed on as soon as it cannot be part of END or of a "\r\n"
// pair, so a long-running command's output streams.
func TestExtractorStreamsOutputAsItArrives(t *testing.T) {
	steps := []struct {
		chunk   string
		soFar   string // everything written to out after this chunk
		comment string
	}{
		{typedEcho, "", "nothing before START"},
		{markers.Start(ourID), "", "START itself is not output"},
		{"line 1\r\n", "line 1\n", "a whole line goes out at once"},
		{"partial", "line 1\npartial", "so does a partial line"},
		{" 50%\r", "line 1\npartial 50%", "a trailing CR waits: it may be half of CRLF"},
		{" 100%", "line 1\npartial 50%\r 100%", "it was a bare CR"},
		{"\r", "line 1\npartial 50%\r 100%", "another trailing CR waits"},
		{"\n", "line 1\npartial 50%\r 100%\n", "it was half of CRLF"},
		{"\x1b]6973;ptybridge;E;", "line 1\npartial 50%\r 100%\n", "a possible END prefix waits"},
		{"01", "line 1\npartial 50%\r 100%\n", "a prefix of another id's END still might be ours"},
		{"x", "line 1\npartial 50%\r 100%\n\x1b]6973;ptybridge;E;01x", "it was not ours"},
		{markers.End(ourID, 0), "line 1\npartial 50%\r 100%\n\x1b]6973;ptybridge;E;01x", "END is not output"},
	}
	var out bytes.Buffer
	e := markers.NewExtractor(ourID, &out)
	for i, s := range steps {
		if _, err := e.Write([]byte(s.chunk)); err != nil {
			t.Fatalf("step %d: Write(%q): %v", i, s.chunk, err)
		}
		if out.String() != s.soFar {
			t.Fatalf("step %d (%s): after Write(%q) out is %q, want %q", i, s.comment, s.chunk, out.String(), s.soFar)
		}
	}
	if !e.Done() || e.Status() != 0 {
		t.Fatalf("after END: Done() = %v, Status() = %d; want true, 0", e.Done(), e.Status())
	}
}

// The extractor holds back at most a possible END marker (its prefix and
// up to three status digits), so memory stays bounded whatever the output.
func TestExtractorHoldsBackOnlyAPossibleEND(t *testing.T) {
	prefix := endPrefix(ourID)
	maxHeld := len(prefix) + 3
	var out bytes.Buffer
	e := markers.NewExtractor(ourID, &out)
	e.Write([]byte(markers.Start(ourID)))
	fed := 0
	for i := range 2000 {
		// Each chunk ends in the most it can while still maybe being END.
		chunk := fmt.Sprintf("chunk %d\r\n%s", i, prefix[:i%len(prefix)])
		if i%7 == 0 {
			chunk += prefix[i%len(prefix):] + "12"
		}
		e.Write([]byte(chunk))
		fed += len(chunk) - 1 // the chunk's CRLF comes out as LF
		if held := fed - out.Len(); held > maxHeld {
			t.Fatalf("after %d chunks, %d bytes are held back; want at most %d", i+1, held, maxHeld)
		}
	}
	if e.Done() {
		t.Fatal("Done() after output that only looked like END")
	}
}

func TestExtractorWriteAfterDone(t *testing.T) {
	var out bytes.Buffer
	e := markers.NewExtractor(ourID, &out)
	e.Write([]byte(call(typedEcho, "out\n", 3, "")))
	later := "after\r\n" + markers.End(ourID, 9)
	n, err := e.Write([]byte(later))
	if n != len(later) || err != nil {
		t.Errorf("Write after END = %d, %v; want %d, nil", n, err, len(later))
	}
	if out.String() != "out\n" || e.Status() != 3 {
		t.Errorf("after END and more: out %q, status %d; want %q, 3", out.String(), e.Status(), "out\n")
	}
}

type failingWriter struct{ writes int }

var errOutClosed = errors.New("out is closed")

func (w *failingWriter) Write(p []byte) (int, error) {
	w.writes++
	return 0, errOutClosed
}

func TestExtractorReportsWhenOutFails(t *testing.T) {
	w := &failingWriter{}
	e := markers.NewExtractor(ourID, w)
	if _, err := e.Write([]byte(typedEcho + markers.Start(ourID))); err != nil {
		t.Fatalf("Write before any output: %v, want no error", err)
	}
	if _, err := e.Write([]byte("output\r\n")); !errors.Is(err, errOutClosed) {
		t.Fatalf("Write of output when out fails: error %v, want %v", err, errOutClosed)
	}
	if _, err := e.Write([]byte("more\r\n" + markers.End(ourID, 0))); !errors.Is(err, errOutClosed) {
		t.Errorf("Write after out failed: error %v, want %v again", err, errOutClosed)
	}
	if w.writes != 1 {
		t.Errorf("out was written %d times, want 1: nothing after it failed", w.writes)
	}
}
