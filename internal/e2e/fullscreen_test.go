package e2e

import (
	"strings"
	"testing"
	"time"
)

// A full-screen program the agent starts (top, vim, a TUI) is no question: ptysend says once that
// it runs and that the user can use it, its screens are no output, and --timeout waits while the
// user does.
func TestAFullScreenProgramIsToldOnceAndTheUserUsesIt(t *testing.T) {
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			t.Run("its screens are no output, and no question", func(t *testing.T) {
				r := b.send("--", `sh -c 'echo before; printf "\033[?1049h\033[H\033[2J"; for i in 1 2 3; do printf "PID USER row $i\r\n"; done; sleep 1; printf "\033[?1049l"; echo after'`)
				if r.code != 0 || r.stdout != "before\nafter\n" {
					t.Fatalf("want only the main screen's output, got:\n%v", r)
				}
				if strings.Count(r.stderr, "a full-screen program runs in the shared terminal") != 1 ||
					strings.Contains(r.stderr, "the terminal asks") || !strings.Contains(r.stderr, "--job-screen") {
					t.Fatalf("want one note naming the way to drive one, and no question, got:\n%s", r.stderr)
				}
			})
			t.Run("with --raw, its bytes, and the note", func(t *testing.T) {
				r := b.send("--raw", "--", `sh -c 'printf "\033[?1049hTUI"; sleep 1; printf "\033[?1049l"; echo after'`)
				if r.code != 0 || r.stdout != "\x1b[?1049hTUI\x1b[?1049lafter\n" ||
					strings.Count(r.stderr, "a full-screen program runs in the shared terminal") != 1 {
					t.Fatalf("want the exact bytes and one note, got:\n%v", r)
				}
			})
			t.Run("the user uses it, longer than --timeout", func(t *testing.T) {
				call := b.start(false, "--timeout", "1", "--", `sh -c 'printf "\033[?1049hPress a key: "; read k </dev/tty; printf "\033[?1049l"; echo "key: $k"'`)
				b.waitForScreen(b.terms[0], "Press a key: ")
				time.Sleep(1500 * time.Millisecond) // longer than --timeout
				b.terms[0].typeKeys("y\r")
				r := call.wait(t)
				if r.code != 0 || r.stdout != "key: y\n" || strings.Contains(r.stderr, "the terminal asks") {
					t.Fatalf("want the key the user pressed, no timeout and no question, got:\n%v", r)
				}
			})
		})
	}
}

// A job that shows a full-screen program: --job-output says that --job-screen reads it.
func TestAJobsFullScreenProgramIsReadWithJobScreen(t *testing.T) {
	b := startBridge(t)
	b.run("--job", "tui", "--", `sh -c 'echo starting; printf "\033[?1049h\033[HTUI screen"; sleep 300'`)
	b.waitFor("the job's full-screen program to show", func() bool {
		return strings.Contains(b.send("--job-screen", "tui").stdout, "TUI screen")
	})
	r := b.send("--job-output", "tui")
	if r.code != 0 || r.stdout != "starting\n" || !strings.Contains(r.stderr, "--job-screen tui shows what it shows") {
		t.Fatalf("want the output before the full-screen program and a note naming --job-screen, got:\n%v", r)
	}
	expectCode(t, b.send("--job-stop", "tui"), 130)
}
