package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Output that asks the terminal something (random bytes, a program probing it): tmux answers on
// the shell's input. The answers are flushed before the prompt takes them, so the next call runs
// and the human's prompt holds no typed-ahead text of the terminal's. ptysend decides when the
// wrapper says the command is over: a query still on its way through the stream then (in the
// last moment of the output) is not seen, hence the command's pause after its output here.
func TestTheTerminalsAnswersToTheOutputAreNoTypedText(t *testing.T) {
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			path := filepath.Join(b.dir, "queries.bin")
			must(t, os.WriteFile(path, []byte("x\x1b[>c\x1b[6n\x1b[c\x1b]11;?\a y\n"), 0o644))
			if r := b.send("--", "cat "+path+"; sleep 0.3"); r.code != 0 {
				t.Fatalf("cat:\n%v", r)
			}
			if got := b.run("--", "echo next"); got != "next\n" {
				t.Fatalf("the next call: %q", got)
			}
			if s := b.send("--status"); !strings.Contains(s.stdout, "half-typed line: no") {
				t.Fatalf("the terminal's answers must not be taken for the human's typing:\n%v", s)
			}
		})
	}
}
