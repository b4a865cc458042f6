package markers

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ptybridge/ptybridge/internal/cleantext"
)

func TestTrackerFollowsTheShellsEvents(t *testing.T) {
	cases := []struct {
		name   string
		stream string
		want   Snapshot
	}{
		{"nothing said yet", "some output\r\n", Snapshot{State: StateUnknown, PID: 0}},
		{"at an empty prompt", "out\r\n$ " + PromptEvent(42), Snapshot{State: StatePrompt, PID: 42}},
		{"the human typed after the prompt", PromptEvent(42) + "ech", Snapshot{State: StateTyped, PID: 42}},
		{"the line editor's escape sequences are not typing", "$ " + PromptEvent(42) + "\x1b[?2004h\x1b]0;title\a\x1b]2;t\x1b\\\x1b=\r", Snapshot{State: StatePrompt, PID: 42}},
		{"typing after escape sequences", PromptEvent(42) + "\x1b[?2004hx", Snapshot{State: StateTyped, PID: 42}},
		{"a line started", PromptEvent(42) + "ls\r\n" + CommandEvent(42), Snapshot{State: StateRunning, PID: 42}},
		{"back at the prompt after output", CommandEvent(42) + "a\r\nb\r\n$ " + PromptEvent(42), Snapshot{State: StatePrompt, PID: 42}},
		{"a nested shell's prompt", CommandEvent(42) + PromptEvent(77), Snapshot{State: StatePrompt, PID: 77}},
		{"a call's markers say nothing about the prompt", PromptEvent(42) + Start("0123456789abcdef") + End("0123456789abcdef", 0), Snapshot{State: StatePrompt, PID: 42}},
		{"an event with a bad pid is ignored", PromptEvent(42) + "\x1b]6973;ptybridge;C;x\a", Snapshot{State: StatePrompt, PID: 42}},
		{"a marker-shaped run longer than any event is a foreign escape, not typing", PromptEvent(42) + "\x1b]6973;ptybridge;P;" + strings.Repeat("1", 80) + "\a", Snapshot{State: StatePrompt, PID: 42}},
		{"a pid of zero is ignored", "\x1b]6973;ptybridge;P;0\a", Snapshot{State: StateUnknown, PID: 0}},
		{"an unterminated marker longer than any event is a foreign escape", PromptEvent(42) + "\x1b]6973;ptybridge;" + strings.Repeat("x", 100), Snapshot{State: StatePrompt, PID: 42}},
		{"a right prompt the shell draws after its prompt is not typing", "> " + PromptEvent(42) + "\x1b[K\r\x1b[93C" + OwnEvent(42) + "[right]" + OwnEndEvent(42) + "\r\x1b[5C", Snapshot{State: StatePrompt, PID: 42}},
		{"typing before the redrawn right prompt", "> " + PromptEvent(42) + "e\r\x1b[93C" + OwnEvent(42) + "[right]" + OwnEndEvent(42), Snapshot{State: StateTyped, PID: 42}},
		{"typing after the right prompt", PromptEvent(42) + OwnEvent(42) + "[right]" + OwnEndEvent(42) + "\r\x1b[5Ce", Snapshot{State: StateTyped, PID: 42}},
		{"the next prompt ends an unfinished right prompt", OwnEvent(42) + "[ri" + PromptEvent(42) + "e", Snapshot{State: StateTyped, PID: 42}},
		{"a command's stderr framed after the prompt is not typing", PromptEvent(42) + string(AppendStderrFrame(nil, "0123456789abcdef", []byte("late\r\n"))), Snapshot{State: StatePrompt, PID: 42}},
		{"typing after a framed stderr", PromptEvent(42) + string(AppendStderrFrame(nil, "0123456789abcdef", []byte("late"))) + "e", Snapshot{State: StateTyped, PID: 42}},
		{"typing after a foreign escape ends", PromptEvent(42) + "\x1b]6973;ptybridge;" + strings.Repeat("x", 100) + "\ay", Snapshot{State: StateTyped, PID: 42}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, chunks := range splits(c.stream) {
				if got := fed(chunks).Snapshot(); got != c.want {
					t.Fatalf("fed as %q: want %v, got %v", chunks, c.want, got)
				}
			}
		})
	}
}

// fed is a tracker that was fed the chunks in turn.
func fed(chunks []string) *Tracker {
	var tr Tracker
	for _, ch := range chunks {
		tr.Write([]byte(ch))
	}
	return &tr
}

// splits is the stream whole, byte by byte, and cut in two at every point.
func splits(s string) [][]string {
	out := [][]string{{s}}
	var bytewise []string
	for i := range len(s) {
		bytewise = append(bytewise, s[i:i+1])
		out = append(out, []string{s[:i], s[i:]})
	}
	return append(out, bytewise)
}

func TestTrackerFollowsTheLineEditorsViMode(t *testing.T) {
	at := func(state PaneState, vi bool) Snapshot { return Snapshot{State: state, PID: 42, ViCommand: vi} }
	cases := []struct {
		name   string
		stream string
		want   Snapshot
	}{
		{"bash draws the mode before its prompt", "\r" + ModeEvent(42, true) + "$ " + PromptEvent(42), at(StatePrompt, true)},
		{"zsh and fish say it after their prompt", "$ " + PromptEvent(42) + ModeEvent(42, true), at(StatePrompt, true)},
		{"back to insert mode", PromptEvent(42) + ModeEvent(42, true) + "\r" + ModeEvent(42, false) + "$ " + PromptEvent(42), at(StatePrompt, false)},
		{"a line recalled in command mode", PromptEvent(42) + ModeEvent(42, true) + "ls -l", at(StateTyped, true)},
		{"the line it ran ends command mode", PromptEvent(42) + ModeEvent(42, true) + "\r\n" + CommandEvent(42) + "out\r\n$ " + PromptEvent(42), at(StatePrompt, false)},
		{"while a command runs it says nothing", PromptEvent(42) + ModeEvent(42, true) + CommandEvent(42), at(StateRunning, false)},
		{"another shell's mode is not this one's", ModeEvent(7, true) + PromptEvent(42), at(StatePrompt, false)},
		{"a nested shell's prompt is not in the outer one's mode", PromptEvent(7) + ModeEvent(7, true) + PromptEvent(42), at(StatePrompt, false)},
		{"an unknown mode is no event", PromptEvent(42) + "\x1b]6973;ptybridge;K;42;visual\a", at(StatePrompt, false)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, chunks := range splits(c.stream) {
				if got := fed(chunks).Snapshot(); got != c.want {
					t.Fatalf("fed as %q: want %+v, got %+v", chunks, c.want, got)
				}
			}
		})
	}
	if got := TrackerFrom(at(StatePrompt, true)).Snapshot(); got != at(StatePrompt, true) {
		t.Fatalf("a tracker from a snapshot in vi command mode: %+v", got)
	}
}

func TestTrackerFromASnapshotContinuesFromIt(t *testing.T) {
	tr := TrackerFrom(Snapshot{State: StateRunning, PID: 7})
	tr.Write([]byte("\r\n$ " + PromptEvent(7)))
	if got := tr.Snapshot(); got != (Snapshot{State: StatePrompt, PID: 7}) {
		t.Fatalf("got %v", got)
	}
}

func FuzzTrackerIgnoresHowTheStreamIsCut(f *testing.F) {
	f.Add([]byte(PromptEvent(3)+"ab"+CommandEvent(3)+"x"+PromptEvent(4)), uint8(3))
	f.Add([]byte("\x1b]6973;ptybridge;P;12"), uint8(1))
	f.Add([]byte(PromptEvent(5)+"\x1b]6973;ptybridge;"+strings.Repeat("9", 80)+"\a"), uint8(7))
	f.Add([]byte(PromptEvent(3)+"ls\r\n"+CommandLineEvent(3, "ls -l; echo 100%")+"out\r\n"+FinishedEvent(3, 2, "/tmp/a;b", "")+PromptEvent(3)), uint8(5))
	f.Add([]byte(CommandLineEvent(3, strings.Repeat("\x1b;%", 200))+"x"), uint8(15))
	f.Add([]byte(Start("0123456789abcdef")+"out"+End("0123456789abcdef", 2)+FinishedEvent(9, 0, "/", "make")), uint8(2))
	f.Add([]byte("\x1b]6973;ptybridge;F;9;1;/;"+strings.Repeat("a", 70)), uint8(9))
	f.Add([]byte("\x1b]6973;ptybridge;C;1;\x1b]6973;ptybridge;P;1\a"), uint8(4))
	f.Add([]byte("\r"+ModeEvent(3, true)+"$ "+PromptEvent(3)+"k"+ModeEvent(3, false)+"\x1b]6973;ptybridge;K;3;vis\a"), uint8(6))
	f.Fuzz(func(t *testing.T, stream []byte, step uint8) {
		var wholeHeard, cutHeard transcript
		whole := Tracker{Sink: &wholeHeard}
		whole.Write(stream)
		cut := Tracker{Sink: &cutHeard}
		n := int(step%16) + 1
		for i := 0; i < len(stream); i += n {
			cut.Write(stream[i:min(i+n, len(stream))])
		}
		if whole.Snapshot() != cut.Snapshot() {
			t.Fatalf("whole %v, in chunks of %d %v", whole.Snapshot(), n, cut.Snapshot())
		}
		if fmt.Sprint(wholeHeard) != fmt.Sprint(cutHeard) {
			t.Fatalf("the sink heard, whole:\n%q\nin chunks of %d:\n%q", wholeHeard, n, cutHeard)
		}
		// What the sink heard as output is never longer than the stream,
		// and holds no complete event of ours.
		var out strings.Builder
		for _, item := range wholeHeard {
			if b, ok := strings.CutPrefix(item, "bytes "); ok {
				out.WriteString(b)
			}
		}
		if out.Len() > len(stream) {
			t.Fatalf("%d bytes of output from a %d-byte stream", out.Len(), len(stream))
		}
	})
}

func TestTrackerFollowsBracketedPasteMode(t *testing.T) {
	cases := []struct {
		name, stream string
		want         cleantext.Mode
	}{
		{"nothing said", "$ ls\r\n", cleantext.Unknown},
		{"a line editor turns it on", "\x1b[?2004h$ ", cleantext.On},
		{"and off when it runs the line", "\x1b[?2004h$ ls\r\n\x1b[?2004l\r", cleantext.Off},
		{"among other private modes", "\x1b[?1;2004;25h", cleantext.On},
		{"other modes leave it alone", "\x1b[?2004h\x1b[?25l\x1b[?1049h\x1b[4l\x1b[2004l", cleantext.On},
		{"a terminal reset ends it", "\x1b[?2004h\x1bc", cleantext.Off},
		{"an event marker between changes nothing", "\x1b[?2004h" + PromptEvent(3), cleantext.On},
		{"an ESC ends an OSC string, as in tmux", "\x1b]0;\x1b[?2004h\a", cleantext.On},
		{"inside an OSC string it is text", "\x1b]0;?2004h\a", cleantext.Unknown},
		{"mid-sequence it is unknown", "\x1b[?2004h\x1b[?20", cleantext.Unknown},
		{"a held marker prefix makes it unknown", "\x1b[?2004l\x1b]6973;ptyb", cleantext.Unknown},
		{"an overlong switch is unknown", "\x1b[?2004h\x1b[?" + strings.Repeat("1;", 40) + "2004l", cleantext.Unknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, chunks := range splits(c.stream) {
				if got := fed(chunks).Paste(); got != c.want {
					t.Fatalf("fed as %q: want %v, got %v", chunks, c.want, got)
				}
			}
		})
	}
}

func TestTrackerFollowsTheAlternateScreen(t *testing.T) {
	cases := []struct {
		name, stream string
		want         cleantext.Mode
	}{
		{"nothing said", "$ ls\r\n", cleantext.Unknown},
		{"a full-screen program turns it on", "\x1b[?1049h\x1b[H\x1b[2Jtext", cleantext.On},
		{"and off when it leaves", "\x1b[?1049hless\x1b[?1049l\r$ ", cleantext.Off},
		{"the older forms", "\x1b[?47h", cleantext.On},
		{"among other private modes", "\x1b[?1;1047h", cleantext.On},
		{"bracketed paste leaves it alone", "\x1b[?1049h\x1b[?2004l", cleantext.On},
		{"a terminal reset ends it", "\x1b[?1049h\x1bc", cleantext.Off},
		{"mid-sequence it is unknown", "\x1b[?1049h\x1b[?10", cleantext.Unknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, chunks := range splits(c.stream) {
				if got := fed(chunks).Alternate(); got != c.want {
					t.Fatalf("fed as %q: want %v, got %v", chunks, c.want, got)
				}
			}
		})
	}
}
