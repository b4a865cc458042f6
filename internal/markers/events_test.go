package markers

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseEvent(t *testing.T) {
	const id = "0123456789abcdef"
	cases := []struct {
		body string
		want Event
		ok   bool
	}{
		{"P;42", Event{Kind: 'P', PID: 42}, true},
		{"P;42;a later field", Event{Kind: 'P', PID: 42}, true},
		{"O;42", Event{Kind: 'O', PID: 42}, true},
		{"o;42", Event{Kind: 'o', PID: 42}, true},
		{"C;42", Event{Kind: 'C', PID: 42}, true},
		{"C;42;", Event{Kind: 'C', PID: 42}, true},
		{"C;42;ls%20-l", Event{Kind: 'C', PID: 42, Line: "ls -l"}, true},
		{"C;42;echo a;b", Event{Kind: 'C', PID: 42, Line: "echo a;b"}, true},
		{"C;42;make%0Amake%20install%3B%25", Event{Kind: 'C', PID: 42, Line: "make\nmake install;%"}, true},
		{"C;42;%C3%A9t%C3%A9", Event{Kind: 'C', PID: 42, Line: "été"}, true},
		{"F;42;2", Event{Kind: 'F', PID: 42, Status: 2, HasStatus: true}, true},
		{"F;42;0;/tmp;", Event{Kind: 'F', PID: 42, HasStatus: true, Dir: "/tmp"}, true},
		{"F;42;130;/a%3Bb;ls /nonexistent", Event{Kind: 'F', PID: 42, Status: 130, HasStatus: true, Dir: "/a;b", Line: "ls /nonexistent"}, true},
		{"F;42;1;/;a;b", Event{Kind: 'F', PID: 42, Status: 1, HasStatus: true, Dir: "/", Line: "a;b"}, true},
		{"F;42;255", Event{Kind: 'F', PID: 42, Status: 255, HasStatus: true}, true},
		{"S;" + id, Event{Kind: 'S', ID: id}, true},
		{"E;" + id + ";3", Event{Kind: 'E', ID: id, Status: 3, HasStatus: true}, true},
		// Malformed, or not ours to know.
		{"", Event{}, false},
		{"P", Event{}, false},
		{"P;", Event{}, false},
		{"P;x", Event{}, false},
		{"P;0", Event{}, false},
		{"P;-1", Event{}, false},
		{"P;+1", Event{}, false},
		{"PP;1", Event{}, false},
		{"F;42", Event{}, false},
		{"F;42;", Event{}, false},
		{"F;42;256", Event{}, false},
		{"F;42;-1", Event{}, false},
		{"F;42;$?", Event{}, false},
		{"F;x;0", Event{}, false},
		{"S;0123", Event{}, false},
		{"S;" + id + ";1", Event{}, false},
		{"E;" + id, Event{}, false},
		{"E;" + id + ";1234", Event{}, false},
		{"R;" + id, Event{Kind: 'R', ID: id}, true},
		{"r;" + id, Event{Kind: 'r', ID: id}, true},
		{"R;0123", Event{}, false},
		{"Z;42", Event{}, false},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%q", c.body), func(t *testing.T) {
			got, ok := ParseEvent([]byte(c.body))
			if ok != c.ok || got != c.want {
				t.Fatalf("got %+v, %v; want %+v, %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestFieldsSurviveAnyBytes(t *testing.T) {
	for _, s := range []string{"", "plain", "100%", "a;b", "\x1b]0;title\a", "tab\there\nnewline\r", "\x18\x1a\x7f", "été 🎉", "\xff\xfe", "%41"} {
		enc := EncodeField(s)
		if strings.ContainsAny(enc, ";\a\x1b\x18\x1a\x7f\n\r") {
			t.Errorf("%q encodes to %q, which a marker cannot carry", s, enc)
		}
		if got := DecodeField(enc); got != s {
			t.Errorf("%q: encoded %q, decoded %q", s, enc, got)
		}
	}
	// fish's string escape --style=url encodes more; a stray '%' stays.
	for enc, want := range map[string]string{"echo%20%22hi%22": `echo "hi"`, "100%": "100%", "%zz%4": "%zz%4", "%e9": "\xe9"} {
		if got := DecodeField(enc); got != want {
			t.Errorf("DecodeField(%q) = %q, want %q", enc, got, want)
		}
	}
}

// transcript records what a Tracker's sink hears: runs of output bytes
// (joined, however the stream was cut) and events.
type transcript []string

func (tr *transcript) Bytes(b []byte) {
	if n := len(*tr); n > 0 && strings.HasPrefix((*tr)[n-1], "bytes ") {
		(*tr)[n-1] += string(b)
		return
	}
	*tr = append(*tr, "bytes "+string(b))
}

func (tr *transcript) Event(e Event) { *tr = append(*tr, fmt.Sprintf("event %+v", e)) }

func heard(chunks []string) transcript {
	var rec transcript
	tr := Tracker{Sink: &rec}
	for _, ch := range chunks {
		tr.Write([]byte(ch))
	}
	return rec
}

func TestTrackerTellsItsSinkTheOutputAndTheEvents(t *testing.T) {
	long := strings.Repeat("x;%\x1b", 1000) // 4,000 bytes, 10,000 encoded
	cases := []struct {
		name, stream string
		want         transcript
	}{
		{"a command of the human's", "$ " + PromptEvent(42) + "ls\r\n" + CommandLineEvent(42, "ls") + "a\r\n" + FinishedEvent(42, 2, "/tmp", "") + "$ " + PromptEvent(42),
			transcript{"bytes $ ", "event {Kind:80 PID:42 ID: Status:0 HasStatus:false Line: Dir: ViCommand:false}", "bytes ls\r\n",
				"event {Kind:67 PID:42 ID: Status:0 HasStatus:false Line:ls Dir: ViCommand:false}", "bytes a\r\n",
				"event {Kind:70 PID:42 ID: Status:2 HasStatus:true Line: Dir:/tmp ViCommand:false}", "bytes $ ",
				"event {Kind:80 PID:42 ID: Status:0 HasStatus:false Line: Dir: ViCommand:false}"}},
		{"an agent's call", Start("0123456789abcdef") + "out" + End("0123456789abcdef", 7),
			transcript{"event {Kind:83 PID:0 ID:0123456789abcdef Status:0 HasStatus:false Line: Dir: ViCommand:false}", "bytes out",
				"event {Kind:69 PID:0 ID:0123456789abcdef Status:7 HasStatus:true Line: Dir: ViCommand:false}"}},
		{"a long command line", CommandLineEvent(42, long) + "!",
			transcript{fmt.Sprintf("event {Kind:67 PID:42 ID: Status:0 HasStatus:false Line:%s Dir: ViCommand:false}", long), "bytes !"}},
		{"a malformed or unknown marker is neither output nor event", "a\x1b]6973;ptybridge;F;42;x\a\x1b]6973;ptybridge;Z;1\ab",
			transcript{"bytes ab"}},
		{"a marker-shaped run too long for its kind is output", "\x1b]6973;ptybridge;P;" + strings.Repeat("1", 80) + "\a",
			transcript{"bytes \x1b]6973;ptybridge;P;" + strings.Repeat("1", 80) + "\a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, chunks := range splits(c.stream) {
				if got := heard(chunks); fmt.Sprint(got) != fmt.Sprint(c.want) {
					t.Fatalf("fed as %d chunks:\ngot  %q\nwant %q", len(chunks), got, c.want)
				}
			}
		})
	}
}

func TestTrackerStateWithTheNewEvents(t *testing.T) {
	for _, c := range []struct {
		name, stream string
		want         Snapshot
	}{
		{"a command line starts a command", PromptEvent(42) + "ls\r\n" + CommandLineEvent(42, "ls -l"), Snapshot{State: StateRunning, PID: 42}},
		{"finished is not yet the prompt", CommandLineEvent(42, "ls") + FinishedEvent(42, 0, "/", "ls") + "$ ", Snapshot{State: StateRunning, PID: 42}},
		{"a long command line is no typing", PromptEvent(42) + CommandLineEvent(42, strings.Repeat("é", 3000)), Snapshot{State: StateRunning, PID: 42}},
		{"a finished event at the prompt is no typing", PromptEvent(42) + FinishedEvent(42, 0, "/", ""), Snapshot{State: StatePrompt, PID: 42}},
		{"a wrapper's start is a command, in dash too (no command line event)", PromptEvent(42) + " . /run/x.sh\r\n" + Start("0123456789abcdef") + "out", Snapshot{State: StateRunning, PID: 42}},
		{"and its end is not yet the prompt", PromptEvent(42) + " . /run/x.sh\r\n" + Start("0123456789abcdef") + End("0123456789abcdef", 0), Snapshot{State: StateRunning, PID: 42}},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, chunks := range splits(c.stream) {
				if got := fed(chunks).Snapshot(); got != c.want {
					t.Fatalf("fed as %q: want %v, got %v", chunks, c.want, got)
				}
			}
		})
	}
}

func FuzzEventFields(f *testing.F) {
	f.Add("C;42;ls%20-l")
	f.Add("F;1;0;/tmp;make%0A")
	f.Add("F;1;300")
	f.Add("E;0123456789abcdef;2")
	f.Add("%%%")
	f.Fuzz(func(t *testing.T, s string) {
		if got := DecodeField(EncodeField(s)); got != s {
			t.Fatalf("%q: round trip gave %q", s, got)
		}
		e, ok := ParseEvent([]byte(s))
		if ok && (e.Status < 0 || e.Status > 255 || strings.IndexByte("PCFOoSERr", e.Kind) < 0) {
			t.Fatalf("%q parsed as %+v", s, e)
		}
	})
}
