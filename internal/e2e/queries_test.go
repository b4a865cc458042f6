package e2e

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Output that asks the terminal something (random bytes, a program probing it): tmux answers on
// the shell's input. The answers are cleared before the prompt takes them, so the next call runs
// and the human's prompt holds no typed-ahead text of the terminal's, even for a query in the last
// moment of the output.
func TestTheTerminalsAnswersToTheOutputAreNoTypedText(t *testing.T) {
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			path := filepath.Join(b.dir, "queries.bin")
			must(t, os.WriteFile(path, []byte("x\x1b[>c\x1b[6n\x1b[c\x1b]11;?\a y\n"), 0o644))
			if r := b.send("--", "cat "+path); r.code != 0 {
				t.Fatalf("cat:\n%v", r)
			}
			expectNoTypedText(t, b)
		})
	}
}

// 1 MB of random bytes, with queries among them and at the very end, comes back through --raw byte
// for byte: the echo of the terminal's answers is no output of the command's. One exception is
// known and recognized exactly: when the terminal's buffer has room for only part of an echo, the
// kernel writes the rest at the command's next write, and an echo in two pieces stays (about one
// query in 300 in the middle of a large output; never one at the end).
func TestRandomBytesWithQueriesComeBackExactThroughRaw(t *testing.T) {
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			want := randomWithQueries(1 << 20)
			path := filepath.Join(b.dir, "random.bin")
			must(t, os.WriteFile(path, want, 0o644))
			r := b.send("--raw", "--", "cat "+path)
			if r.code != 0 {
				t.Fatalf("cat: exit %d, stderr %q", r.code, r.stderr)
			}
			if got := []byte(r.stdout); !bytes.Equal(got, want) {
				i := firstDifference(got, want)
				if pieces := splitEcho(got, want); pieces != nil {
					t.Logf("an echo the kernel wrote in two pieces stayed (known): %q", pieces)
				} else {
					t.Fatalf("--raw must be the output byte for byte: %d bytes, want %d; first difference at %d: got %q, want %q",
						len(got), len(want), i, got[i:min(len(got), i+40)], want[i:min(len(want), i+40)])
				}
			}
			expectNoTypedText(t, b)
		})
	}
}

func firstDifference(a, b []byte) int {
	i := 0
	for i < min(len(a), len(b)) && a[i] == b[i] {
		i++
	}
	return i
}

// answerEcho is the echo of one answer of a terminal's, as ECHOCTL shows it.
var answerEcho = regexp.MustCompile(`^\^\[(\[[?>]?[0-9;]*[cnRt]|\][0-9]+;[ -~]*(\^G|\^\[\\)|P[ -~]*\^\[\\)$`)

// splitEcho returns the two pieces when got is want with one answer's echo inserted in two
// pieces, else nil.
func splitEcho(got, want []byte) [][]byte {
	i := firstDifference(got, want)
	for k := 1; k <= 32 && i+k <= len(got); k++ {
		first := got[i : i+k]
		d := firstDifference(got[i+k:], want[i:])
		g, w := i+k+d, i+d
		for m := 1; m <= 32 && g+m <= len(got); m++ {
			second := got[g : g+m]
			if bytes.Equal(got[g+m:], want[w:]) && answerEcho.Match(append(append([]byte{}, first...), second...)) {
				return [][]byte{first, second}
			}
		}
	}
	return nil
}

// The human's keys, typed while a command runs whose output then asks the terminal something,
// are theirs: the answers are taken from the input, the keys stay, typed ahead of the prompt. Not
// dash: it reads its line without a line editor, and takes keys typed during a command into its
// own buffer at once, where no look sees them (a gap of its own, answers or not).
func TestKeysTypedAheadSurviveTheTerminalsAnswers(t *testing.T) {
	for _, sh := range shells {
		if sh.name == "dash" {
			continue
		}
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			path := filepath.Join(b.dir, "queries.bin")
			must(t, os.WriteFile(path, []byte("x\x1b[>c\x1b[6n\x1b[c\x1b]11;?\a y\n"), 0o644))
			expectTypeAheadKept(t, b, "sleep 1; cat "+path)
			expectNoTypedText(t, b)
		})
	}
}

// queries are what random output can hold that a terminal answers on its input, and one tmux
// does not answer (\x1b[?u, the kitty keyboard's).
var queries = []string{"\x1b[c", "\x1b[6n", "\x1b[>c", "\x1b]11;?\a", "\x1b[?u", "\x1b[5n", "\x1b[>q", "\x1b[18t"}

// randomWithQueries is n random bytes (a fixed seed) with queries among them, the last at the end.
func randomWithQueries(n int) []byte {
	r := rand.New(rand.NewPCG(19, 6))
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	for i, q := range queries {
		at := (i + 1) * n / (len(queries) + 1)
		copy(p[at:], q)
	}
	return append(p, []byte(strings.Join(queries, ""))...)
}

// expectNoTypedText: the next call runs, and the human's line holds nothing the terminal typed.
func expectNoTypedText(t *testing.T, b *bridge) {
	t.Helper()
	if got := b.run("--", "echo next"); got != "next\n" {
		t.Fatalf("the next call: %q", got)
	}
	if s := b.send("--status"); !strings.Contains(s.stdout, "half-typed line: no") {
		t.Fatalf("the terminal's answers must not be taken for the human's typing:\n%v\nthe pane:\n%s", s, b.paneText())
	}
}
