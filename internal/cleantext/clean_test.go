package cleantext

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

type cleanCase struct {
	name  string
	input string // what the command wrote to the terminal (one ONLCR undone)
	want  string // the clean text
}

// Every case is checked in one Write, split into two Writes at every
// position, and one byte per Write (TestCleanSplits).

var escapeCases = []cleanCase{
	{"plain text passes unchanged", "hello\nworld\n", "hello\nworld\n"},
	{"colour codes of ls --color", "\x1b[0m\x1b[01;34mdir\x1b[0m  \x1b[01;32mrun.sh\x1b[0m\n", "dir  run.sh\n"},
	{"one coloured name", "\x1b[01;34mdir\x1b[0m\n", "dir\n"},
	{"private CSI (cursor hidden, bracketed paste)", "\x1b[?25l\x1b[?2004hbusy\x1b[?25h\n", "busy\n"},
	{"CSI with an intermediate byte", "\x1b[2 qx\n", "x\n"},
	{"private EL is not EL", "abc\r\x1b[?Kx\n", "xbc\n"},
	{"OSC title ended by BEL", "\x1b]0;user@host: ~\aok\n", "ok\n"},
	{"OSC title ended by ST", "\x1b]2;title\x1b\\ok\n", "ok\n"},
	{"OSC 8 hyperlink ended by ST", "see \x1b]8;;https://example.com/a?b=1\x1b\\the docs\x1b]8;;\x1b\\.\n", "see the docs.\n"},
	{"OSC 8 hyperlink ended by BEL", "\x1b]8;id=1;file:///tmp/x\alink\x1b]8;;\a\n", "link\n"},
	{"OSC content is not text, UTF-8 and newlines included", "\x1b]0;tîtle ✓\nstill title\aok\n", "ok\n"},
	{"shell integration marks around a line", "\x1b]133;C\aout\n\x1b]133;D;0\a", "out\n"},
	{"DCS", "\x1bP1$r0m\x1b\\after\n", "after\n"},
	{"DCS holding doubled ESCs (tmux passthrough)", "\x1bPtmux;\x1b\x1b]0;t\a\x1b\\ok\n", "ok\n"},
	{"DCS is not ended by BEL", "\x1bPq#0\a;more\x1b\\ok\n", "ok\n"},
	{"APC", "\x1b_Gf=100;AAAA\x1b\\x\n", "x\n"},
	{"PM", "\x1b^private\x1b\\x\n", "x\n"},
	{"SOS", "\x1bXstring\x1b\\x\n", "x\n"},
	{"tmux window title (ESC k)", "\x1bkvim\x1b\\x\n", "x\n"},
	{"charset switch to line drawing and back", "\x1b(0lqqk\x1b(B ok\n", "lqqk ok\n"},
	{"other charset designations", "\x1b)0a\x1b*xb\x1b+Bc\x1b%Gd\x1b#8e\n", "abcde\n"},
	{"two-byte escapes", "\x1b7\x1b=a\x1b>\x1bMb\x1b8\x1bcc\x1bDd\n", "abcd\n"},
	{"ESC inside a CSI starts a new sequence", "abc\r\x1b[3\x1b[Kx\n", "x\n"},
	{"CAN cancels a sequence", "\x1b[31\x18red\n", "red\n"},
	{"SUB cancels an OSC", "\x1b]0;title\x1atext\n", "text\n"},
	{"a control inside a CSI is acted on", "ab\x1b[1\nm", "ab\n"},
	{"non-ASCII bytes inside a CSI are ignored", "\x1b[é31mx\n", "x\n"},
	{"8-bit C1 bytes are not controls", "\x9b31m \xc2\x9b\n", "\x9b31m \xc2\x9b\n"},
	{"unterminated CSI at Close is dropped", "text\x1b[1;3", "text"},
	{"unterminated OSC at Close is dropped", "text\x1b]0;tit", "text"},
	{"unterminated DCS at Close is dropped", "text\x1bPabc\x1b", "text"},
	{"lone ESC at Close is dropped", "text\x1b", "text"},
}

var lineEndCases = []cleanCase{
	{"CRLF", "a\r\nb\r\n", "a\nb\n"},
	{"CR CR LF (a second pty: sudo, ssh -t)", "a\r\r\nb\r\r\n", "a\nb\n"},
	{"many CRs before LF", "a\r\r\r\r\n", "a\n"},
	{"empty CRLF lines", "\r\n\r\r\n\n", "\n\n\n"},
	{"mixed line endings", "a\nb\r\nc\r\r\nd", "a\nb\nc\nd"},
	{"CRLF after coloured text", "\x1b[32mok\x1b[0m\r\r\n", "ok\n"},
	{"no trailing newline stays without one", "no newline", "no newline"},
	{"trailing CR at the end leaves the line as it shows", "abc\r", "abc"},
	{"trailing CR after a redraw", "100%\rab\r", "ab0%"},
}

var redrawCases = []cleanCase{
	{"progress percentage", "50%\r100%\n", "100%\n"},
	{"shorter text overwrites only its cells", "abc\rx\n", "xbc\n"},
	{"EL after CR erases the old text", "working...\r\x1b[Kdone\n", "done\n"},
	{"progress bar with EL", "[#   ] 25%\r\x1b[K[##  ] 50%\r\x1b[K[####] 100%\r\x1b[K[####] done\n", "[####] done\n"},
	{"progress bar then more output", "get 10%\r\x1b[0Kget 100%\r\nnext\n", "get 100%\nnext\n"},
	{"spinner with backspaces", "working |\b/\b-\b\\\bdone\n", "working done\n"},
	{"backspace stops at the margin", "\b\bab\n", "ab\n"},
	{"backspace then overwrite", "abc\b\bX\n", "aXc\n"},
	{"EL 1 erases to the start, cursor included", "hello world\x1b[6G\x1b[1K\n", "      world\n"},
	{"EL 2 erases the whole line", "hello\x1b[2K\n", "\n"},
	{"EL 2 leaves the cursor where it is", "hello\x1b[2Kx\n", "     x\n"},
	{"EL with other parameters is ignored", "abc\r\x1b[3Kx\n", "xbc\n"},
	{"CHA", "abcdef\x1b[3GX\n", "abXdef\n"},
	{"CHA 0 is column 1", "abc\x1b[0GX\n", "Xbc\n"},
	{"CHA with more parameters uses the first", "abc\x1b[2;5GX\n", "aXc\n"},
	{"CUF within the line", "abc\r\x1b[2CX\n", "abX\n"},
	{"CUF past the end pads when something is written", "ab\x1b[3CX\n", "ab   X\n"},
	{"CUF past the end invents nothing", "ab\x1b[3C\n", "ab\n"},
	{"CUF default is 1", "ab\r\x1b[CX\n", "aX\n"},
	{"CUF is bounded", "a\x1b[999999999Cb\n", "a" + strings.Repeat(" ", farthestColumn-1) + "b\n"},
	{"CUB", "abcd\x1b[2DX\n", "abXd\n"},
	{"CUB stops at the margin", "ab\x1b[9DX\n", "Xb\n"},
	{"DCH", "abcdef\x1b[3G\x1b[2P\n", "abef\n"},
	{"DCH past the end", "abc\x1b[3G\x1b[9P\n", "ab\n"},
	{"ECH", "abcdef\x1b[3G\x1b[2X\n", "ab  ef\n"},
	{"ECH to the end", "abcdef\x1b[5G\x1b[5X\n", "abcd\n"},
	{"TAB is one cell, kept", "a\tb\rX\n", "X\tb\n"},
	{"trailing spaces written are kept", "abc   \n", "abc   \n"},
	{"trailing spaces before CRLF are kept", "abc   \r\n", "abc   \n"},
	{"other C0 controls are removed", "a\x00b\x07c\x0e\x0fd\x0b\x0ce\x7ff\n", "abcdef\n"},
	{"UTF-8 passes unchanged", "héllo wörld ✓ 😀\n", "héllo wörld ✓ 😀\n"},
	{"UTF-8 is one cell per rune", "日本語\rX\n", "X本語\n"},
	{"UTF-8 overwritten by UTF-8", "aaa\ré😀\n", "é😀a\n"},
	{"invalid UTF-8 is kept byte by byte", "\xff\xfe ok \xe2\x82\n", "\xff\xfe ok \xe2\x82\n"},
	{"invalid UTF-8 bytes are one cell each", "\xe2\x82abc\rXY\n", "XYabc\n"},
	{"truncated UTF-8 at Close is kept", "ok \xf0\x9f\x98", "ok \xf0\x9f\x98"},
	{"a full-screen program's screens are no output", "before\n\x1b[?1049h\x1b[H\x1b[2Jtop - 10:00\r\nPID USER\r\n\x1b[?1049lafter\n", "before\nafter\n"},
	{"the main screen's line comes back as it was", "$ \x1b[?1049hscreen\r\n\x1b[?1049l\rdone\n", "done\n"},
	{"the line left before the full-screen program goes on", "partial \x1b[?1049hx\x1b[?1049lend\n", "partial end\n"},
	{"the older alternate screens, 47 and 1047", "\x1b[?47hA\n\x1b[?47l\x1b[?1047hB\n\x1b[?1047lC\n", "C\n"},
	{"a full-screen program still running at the end shows nothing", "start\n\x1b[?1049hframe 1\r\nframe 2", "start\n"},
}

func allCases() []cleanCase {
	var all []cleanCase
	for _, group := range [][]cleanCase{escapeCases, lineEndCases, redrawCases} {
		all = append(all, group...)
	}
	return all
}

// cleanInWrites runs input through a Writer, cut into the given pieces.
func cleanInWrites(t testing.TB, pieces ...string) string {
	t.Helper()
	var out bytes.Buffer
	c := NewWriter(&out)
	for _, p := range pieces {
		if n, err := c.Write([]byte(p)); n != len(p) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", p, n, err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return out.String()
}

func TestCleanEscapeSequences(t *testing.T) { checkCases(t, escapeCases) }
func TestCleanLineEndings(t *testing.T)     { checkCases(t, lineEndCases) }
func TestCleanRedraws(t *testing.T)         { checkCases(t, redrawCases) }

func checkCases(t *testing.T, cases []cleanCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := String(tc.input); got != tc.want {
				t.Errorf("String(%q)\n got %q\nwant %q", tc.input, got, tc.want)
			}
		})
	}
}

// Sequences, UTF-8 characters and "\r\n"s cut by a Write boundary anywhere
// give the same text.
func TestCleanSplits(t *testing.T) {
	for _, tc := range allCases() {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i <= len(tc.input); i++ {
				if got := cleanInWrites(t, tc.input[:i], tc.input[i:]); got != tc.want {
					t.Fatalf("split at %d: %q + %q\n got %q\nwant %q", i, tc.input[:i], tc.input[i:], got, tc.want)
				}
			}
			if got := cleanInWrites(t, strings.Split(tc.input, "")...); got != tc.want {
				// strings.Split by "" cuts into runes; cut into bytes too.
				t.Fatalf("rune by rune\n got %q\nwant %q", got, tc.want)
			}
			var bytewise []string
			for i := range len(tc.input) {
				bytewise = append(bytewise, tc.input[i:i+1])
			}
			if got := cleanInWrites(t, bytewise...); got != tc.want {
				t.Fatalf("byte by byte\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// Lines are written as each '\n' arrives; a partial line waits for Close.
func TestCleanWritesLinesAsTheyEnd(t *testing.T) {
	var out bytes.Buffer
	c := NewWriter(&out)
	steps := []struct{ write, soFar string }{
		{"first\nsec", "first\n"},
		{"ond\x1b[1", "first\n"},
		{"m!\x1b[0m\r", "first\n"},
		{"\n", "first\nsecond!\n"},
		{"50%", "first\nsecond!\n"},
		{"\r100%", "first\nsecond!\n"},
	}
	for _, s := range steps {
		c.Write([]byte(s.write))
		if out.String() != s.soFar {
			t.Fatalf("after Write(%q): output %q, want %q", s.write, out.String(), s.soFar)
		}
	}
	c.Close()
	if want := "first\nsecond!\n100%"; out.String() != want {
		t.Fatalf("after Close: output %q, want %q", out.String(), want)
	}
}

func TestCleanTakePending(t *testing.T) {
	type step struct {
		write       string
		takePending bool
		question    string // what TakePendingIf returns
	}
	cases := []struct {
		name  string
		steps []step
		want  string // the output at Close
	}{
		{"sudo password: the newline sudo prints after it is dropped", []step{
			{write: "Reading...\n[sudo] password for u: "},
			{takePending: true, question: "[sudo] password for u: "},
			{write: "\n"},
			{write: "installed\n"},
		}, "Reading...\ninstalled\n"},
		{"echoed answer dropped, then output continues", []step{
			{write: "Continue? [y/N] "},
			{takePending: true, question: "Continue? [y/N] "},
			{write: "y\r\n"},
			{write: "done\n"},
		}, "done\n"},
		{"echoed answer in pieces, output in the same write", []step{
			{write: "ok\nProceed? "},
			{takePending: true, question: "Proceed? "},
			{write: "y"},
			{write: "es\r"},
			{write: "\ndone\r\n"},
		}, "ok\ndone\n"},
		{"the question is cleaned", []step{
			{write: "50%\r\x1b[K\x1b[1mPassword:\x1b[0m "},
			{takePending: true, question: "Password: "},
			{write: "\n\x1b[32mok\x1b[0m\n"},
		}, "ok\n"},
		{"nothing pending: still drops the answer", []step{
			{write: "Continue?\n"},
			{takePending: true, question: ""},
			{write: "y\n"},
			{write: "done"},
		}, "Continue?\ndone"},
		{"an open sequence goes with the question", []step{
			{write: "Name: \x1b]0;ti"},
			{takePending: true, question: "Name: "},
			{write: "bob\nhi bob\n"},
		}, "hi bob\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			c := NewWriter(&out)
			for _, s := range tc.steps {
				if !s.takePending {
					c.Write([]byte(s.write))
					continue
				}
				if got, _ := c.TakePendingIf(func(string) bool { return true }); got != s.question {
					t.Fatalf("TakePendingIf() = %q, want %q", got, s.question)
				}
			}
			c.Close()
			if out.String() != tc.want {
				t.Fatalf("output %q, want %q", out.String(), tc.want)
			}
		})
	}
}

// TakePendingIf takes nothing when the pending line is not what it looks
// for: the output, and the line after it, stay whole.
func TestCleanTakePendingIf(t *testing.T) {
	var out bytes.Buffer
	c := NewWriter(&out)
	c.Write([]byte("1\n2\n12"))
	var seen string
	if q, ok := c.TakePendingIf(func(p string) bool { seen = p; return p == "Password: " }); ok || q != "" {
		t.Fatalf("TakePendingIf took %q from a line that is no question", q)
	}
	if seen != "12" {
		t.Fatalf("TakePendingIf looked at %q, want the pending line %q", seen, "12")
	}
	c.Write([]byte("34\n5\nPassword: "))
	if q, ok := c.TakePendingIf(func(p string) bool { return p == "Password: " }); !ok || q != "Password: " {
		t.Fatalf("TakePendingIf = %q, %v; want the question taken", q, ok)
	}
	c.Write([]byte("\n6\n"))
	c.Close()
	if want := "1\n2\n1234\n5\n6\n"; out.String() != want {
		t.Fatalf("output %q, want %q", out.String(), want)
	}
}

func TestCleanHugeLine(t *testing.T) {
	huge := strings.Repeat("0123456789", 400_000) // 4 MB, no newline inside
	cases := []cleanCase{
		{"huge plain line", huge + "\n", huge + "\n"},
		{"huge line without a newline", huge, huge},
		{"huge line redrawn at its start", huge + "\rab\r\n", "ab" + huge[2:] + "\n"},
		{"huge line erased", huge + "\r\x1b[Kshort\n", "short\n"},
		{"huge coloured line between plain ones", "a\n\x1b[31m" + huge + "\x1b[0m\nb\n", "a\n" + huge + "\nb\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, size := range []int{len(tc.input), 65536, 4093} {
				var pieces []string
				for i := 0; i < len(tc.input); i += size {
					pieces = append(pieces, tc.input[i:min(len(tc.input), i+size)])
				}
				if got := cleanInWrites(t, pieces...); got != tc.want {
					t.Fatalf("in writes of %d bytes: got %d bytes, want %d", size, len(got), len(tc.want))
				}
			}
		})
	}
}

// Fast path: plain complete lines reach the underlying writer as the
// caller's bytes, in one Write per chunk.
func TestCleanPassesPlainLinesInOneWrite(t *testing.T) {
	var rec writeRecorder
	c := NewWriter(&rec)
	chunk := "1\n2\n3\n4\npart"
	c.Write([]byte(chunk))
	if len(rec.writes) != 1 || rec.writes[0] != "1\n2\n3\n4\n" {
		t.Fatalf("writes %q, want one write of the complete lines", rec.writes)
	}
}

type writeRecorder struct{ writes []string }

func (r *writeRecorder) Write(p []byte) (int, error) {
	r.writes = append(r.writes, string(p))
	return len(p), nil
}

// The Writer's memory does not grow with the output: its buffers are
// reused from line to line, whatever path the lines take.
func TestCleanMemoryDoesNotGrowWithOutput(t *testing.T) {
	stream := func(lines int) []byte {
		var b bytes.Buffer
		for i := range lines {
			switch i % 3 {
			case 0:
				b.WriteString("plain line\n")
			case 1:
				b.WriteString("\x1b[32mcoloured\x1b[0m line\n")
			default:
				b.WriteString("sudo line\r\n")
			}
		}
		return b.Bytes()
	}
	allocs := func(data []byte) float64 {
		return testing.AllocsPerRun(3, func() {
			c := NewWriter(discard{})
			for i := 0; i < len(data); i += 4096 {
				c.Write(data[i:min(len(data), i+4096)])
			}
			c.Close()
		})
	}
	small, large := allocs(stream(1000)), allocs(stream(50000))
	if large > small+2 {
		t.Fatalf("allocations grow with the output: %v for 1000 lines, %v for 50000", small, large)
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestCleanReportsWriteErrors(t *testing.T) {
	broken := errors.New("broken pipe")
	c := NewWriter(failingWriter{broken})
	if _, err := c.Write([]byte("line\n")); !errors.Is(err, broken) {
		t.Fatalf("Write: %v, want %v", err, broken)
	}
	if _, err := c.Write([]byte("more\n")); !errors.Is(err, broken) {
		t.Fatalf("second Write: %v, want %v", err, broken)
	}
	if err := c.Close(); !errors.Is(err, broken) {
		t.Fatalf("Close: %v, want %v", err, broken)
	}
}

type failingWriter struct{ err error }

func (f failingWriter) Write(p []byte) (int, error) { return 0, f.err }

// The history's --output of a pager the user ran keeps what it showed.
func TestScreensStringKeepsWhatAFullScreenProgramShowed(t *testing.T) {
	in := "before\n\x1b[?1049h\x1b[HNAME=Debian\r\nID=debian\r\n\x1b[?1049lafter\n"
	if got := ScreensString(in); got != "before\nNAME=Debian\nID=debian\nafter\n" {
		t.Errorf("ScreensString: %q", got)
	}
	if got := String(in); got != "before\nafter\n" {
		t.Errorf("String: %q", got)
	}
}
