package cleantext

import (
	"bytes"
	"strings"
	"testing"
)

// echoesCases: output with queries, as the terminal shows it with the echo of the answers.
var echoesCases = []struct{ name, in, want string }{
	{"no query", "plain ^[[?1;2c text\n", "plain ^[[?1;2c text\n"},
	{"an answer's echo after its query", "a\x1b[cb^[[?1;2cc\n", "a\x1b[cbc\n"},
	{"the echo comes later, after more output", "\x1b[>cone\ntwo^[[>84;0;0cthree", "\x1b[>cone\ntwothree"},
	{"one echo per query", "\x1b[5n^[[0n^[[0n", "\x1b[5n^[[0n"},
	{"two queries, two echoes", "\x1b[5n\x1b[6n^[[0n^[[3;7R.", "\x1b[5n\x1b[6n."},
	{"an OSC colour's echo, BEL", "\x1b]11;?\a^[]11;rgb:1e1e/1e1e/1e1e^G!", "\x1b]11;?\a!"},
	{"an OSC colour's echo, ST", "\x1b]11;?\x1b\\^[]11;rgb:1e1e/1e1e/1e1e^[\\!", "\x1b]11;?\x1b\\!"},
	{"XTVERSION's DCS", "\x1b[>q^[P>|tmux 3.3a^[\\", "\x1b[>q"},
	{"an arrow key's echo stays", "\x1b[c^[[A^[[?1;2c", "\x1b[c^[[A"},
	{"a caret that is no echo", "\x1b[c^x ^^ ^[x ^[[?1;2c", "\x1b[c^x ^^ ^[x "},
	{"no echo before the query", "^[[?1;2c\x1b[c", "^[[?1;2c\x1b[c"},
	{"an answer in the output is output", "\x1b[?1;2c", "\x1b[?1;2c"},
	{"a window report's echo", "\x1b[18t^[[8;24;80t", "\x1b[18t"},
	{"an unfinished echo at the end stays", "\x1b[c^[[?1;2", "\x1b[c^[[?1;2"},
	{"a query cut at the end stays", "x\x1b[", "x\x1b["},
}

func TestAnswerEchoesTakesTheEchoesOfAnswers(t *testing.T) {
	for _, c := range echoesCases {
		for _, split := range []bool{false, true} {
			if got := filterEchoes(c.in, split); got != c.want {
				t.Errorf("%s (byte by byte %v): %q gave %q, want %q", c.name, split, c.in, got, c.want)
			}
		}
	}
}

func TestAnswerEchoesSaysTheOutputAsked(t *testing.T) {
	for in, want := range map[string]bool{"plain": false, "\x1b[31m": false, "a\x1b[6n": true, "^[[6n": false, "\x1b]11;?\a": true} {
		a := &AnswerEchoes{W: new(bytes.Buffer)}
		a.Write([]byte(in))
		if a.Queried() != want {
			t.Errorf("%q: Queried() = %v, want %v", in, a.Queried(), want)
		}
	}
}

// filterEchoes runs in through AnswerEchoes whole, or byte by byte, and flushes.
func filterEchoes(in string, byteByByte bool) string {
	var out bytes.Buffer
	a := &AnswerEchoes{W: &out}
	if byteByByte {
		for i := range len(in) {
			a.Write([]byte{in[i]})
		}
	} else {
		a.Write([]byte(in))
	}
	a.Flush()
	return out.String()
}

// syncAnswer is tmux 3.3a's answer to SyncQuery.
const syncAnswer = "\x1b[0n\x1b[>84;0;0c\x1b[0n"

func TestSynced(t *testing.T) {
	for in, want := range map[string]bool{
		"":                                false,
		syncAnswer:                        true,
		"\x1b[?1;2c" + syncAnswer:         true,
		"ls\n" + syncAnswer + "x":         true,
		"\x1b[0n\x1b[0n" + syncAnswer[4:]: true,
		"\x1b[0n":                         false,
		"\x1b[0n\x1b[>84;0;0c":            false,
		"\x1b[0n\x1b[?1;2c\x1b[0n":        false,
		"\x1b[0n\x1b[>1;95;0c\x1b[0n":     true, // another version's attributes
	} {
		if got := Synced([]byte(in)); got != want {
			t.Errorf("Synced(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestWithoutAnswersKeepsTheHumansKeys(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{syncAnswer, ""},
		{"\x1b[?1;2c\x1b[>84;0;0c\x1b[12;1R\x1b]11;rgb:1e1e/1e1e/1e1e\a\x1bP>|tmux 3.3a\x1b\\\x1b[8;24;80t" + syncAnswer, ""},
		{"ec\x1b[0nho hi\x1b[A\x1b[D\n" + syncAnswer, "echo hi\x1b[A\x1b[D\n"},
		{"vi mode\x1b", "vi mode\x1b"},
		{"\x1b\x1b[0n", "\x1b"},
		{"x\x1b[200~pasted\x1b[201~", "x\x1b[200~pasted\x1b[201~"},
	} {
		if got := string(WithoutAnswers([]byte(c.in))); got != c.want {
			t.Errorf("WithoutAnswers(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// FuzzAnswerEchoes: however the output is split, the same text comes out; it is the output with
// whole echoes taken out (never more than came in); output with no ESC is unchanged.
func FuzzAnswerEchoes(f *testing.F) {
	for _, c := range echoesCases {
		f.Add([]byte(c.in), uint(len(c.in)/2))
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint) {
		whole := filterEchoes(string(in), false)
		at := int(split % uint(len(in)+1))
		var out bytes.Buffer
		a := &AnswerEchoes{W: &out}
		a.Write(in[:at])
		a.Write(in[at:])
		a.Flush()
		if out.String() != whole {
			t.Fatalf("split at %d of %q: %q, whole %q", at, in, out.String(), whole)
		}
		if bytes.IndexByte(in, 0x1b) < 0 && whole != string(in) {
			t.Fatalf("%q has no query but became %q", in, whole)
		}
		if !isSubsequence(whole, string(in)) {
			t.Fatalf("%q is not what %q kept", whole, in)
		}
		if !strings.Contains(string(in), "^[") && whole != string(in) {
			t.Fatalf("%q has no echo but became %q", in, whole)
		}
	})
}

// FuzzInputAnswers: the keys are what the input held, less some of it, and the answer to
// SyncQuery is found after anything.
func FuzzInputAnswers(f *testing.F) {
	f.Add([]byte("ls\x1b[?1;2c\x1b[A"))
	f.Add([]byte(syncAnswer))
	f.Fuzz(func(t *testing.T, in []byte) {
		if keys := WithoutAnswers(in); !isSubsequence(string(keys), string(in)) {
			t.Fatalf("WithoutAnswers(%q) = %q", in, keys)
		}
		if !Synced(append(append([]byte{}, in...), syncAnswer...)) {
			t.Fatalf("the sync's answer after %q is not found", in)
		}
	})
}

func isSubsequence(sub, s string) bool {
	i := 0
	for j := 0; j < len(s) && i < len(sub); j++ {
		if s[j] == sub[i] {
			i++
		}
	}
	return i == len(sub)
}
