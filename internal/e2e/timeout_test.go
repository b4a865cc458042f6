package e2e

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestNoOutputTimeoutInterruptsAndKeepsTheOutputSoFar(t *testing.T) {
	b := startBridge(t)
	r := b.send("--timeout", "1", "--", "echo started; sleep 300")
	if r.code != 124 || r.stdout != "started\n" {
		t.Fatalf("want exit 124 with the output so far and nothing else:\n%v", r)
	}
	for _, want := range []string{"ptysend: error: no output for 1s (--timeout)", "Ctrl-C", "hint: "} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if got := b.run("--", "echo usable"); got != "usable\n" {
		t.Fatalf("the shell must be usable after the kill, got %q", got)
	}
}

func TestMaxTimeFiresEvenWhileOutputFlows(t *testing.T) {
	b := startBridge(t)
	r := b.send("--timeout", "30", "--max-time", "1.5", "--", "while :; do echo tick; sleep 0.1; done")
	if r.code != 124 || !strings.Contains(r.stderr, "--max-time") {
		t.Fatalf("want exit 124 naming --max-time:\n%v", r)
	}
	if r.stdout == "" || strings.Trim(r.stdout, "tick\n") != "" {
		t.Fatalf("want only tick lines (no prompt, no ^C), got %q", r.stdout)
	}
}

func TestCtrlBackslashStopsWhatIgnoresCtrlC(t *testing.T) {
	b := startBridge(t)
	r := b.send("--timeout", "1", "--", `bash -c 'trap "" INT; echo stubborn; sleep 300'`)
	if r.code != 124 || r.stdout != "stubborn\n" || !strings.Contains(r.stderr, `Ctrl-\`) {
		t.Fatalf("want exit 124 after Ctrl-\\:\n%v", r)
	}
	if got := b.run("--", "echo usable"); got != "usable\n" {
		t.Fatalf("got %q", got)
	}
}

func TestACommandThatHandlesTheInterruptKeepsItsLastWords(t *testing.T) {
	b := startBridge(t)
	r := b.send("--timeout", "1", "--", `bash -c 'trap "echo cleaned up; exit 0" INT; echo working; sleep 300 & wait'`)
	if r.code != 124 || r.stdout != "working\ncleaned up\n" {
		t.Fatalf("want exit 124 with the command's output after Ctrl-C (without the ^C echo):\n%v", r)
	}
}

func TestOutputOnStderrCountsAsOutput(t *testing.T) {
	b := startBridge(t)
	r := b.send("--timeout", "1", "--", "for i in 1 2 3 4 5; do echo tick >&2; sleep 0.4; done; echo done")
	if r.code != 0 || r.stdout != "done\n" || strings.Count(r.stderr, "tick") != 5 {
		t.Fatalf("a command busy on stderr must not hit the no-output timeout:\n%v", r)
	}
}

func TestStoppingPtysendInterruptsTheCommand(t *testing.T) {
	b := startBridge(t)
	cmd := b.ptysend(nil, "--", "echo started; sleep 300")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	must(t, cmd.Start())
	b.waitFor("sleep to run in the pane", func() bool {
		out, _ := b.tmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_current_command}")
		return strings.TrimSpace(out) == "sleep"
	})
	must(t, cmd.Process.Signal(syscall.SIGTERM))
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGTERM) || stdout.String() != "started\n" {
		t.Fatalf("want exit 143 and the output so far, got %d and %q", code, stdout.String())
	}
	if !strings.Contains(stderr.String(), "ptysend: error: ptysend was stopped by terminated") || !strings.Contains(stderr.String(), "\nhint: ") {
		t.Fatalf("want the error and its hint, got %q", stderr.String())
	}
	if got := b.run("--", "echo usable"); got != "usable\n" {
		t.Fatalf("the command must have been interrupted; got %q", got)
	}
}

// ptysend catches its stop signals beside its first steps, not before them; whenever a stop comes,
// the command is either never typed or interrupted: the shell is never left running it, nor
// holding part of the typed line.
func TestAStopAtAnyMomentLeavesNoCommandRunning(t *testing.T) {
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			for i := range 20 {
				at := time.Duration(i) * 150 * time.Microsecond // from at once to well after the typing
				cmd := b.ptysend(nil, "--", "sleep 300")
				var stderr strings.Builder
				cmd.Stderr = &stderr
				must(t, cmd.Start())
				time.Sleep(at)
				must(t, cmd.Process.Signal(syscall.SIGINT))
				cmd.Wait()
				// Stopped before it caught its signals, ptysend dies of the signal; after, it says so.
				if status := cmd.ProcessState.Sys().(syscall.WaitStatus); !status.Signaled() &&
					(status.ExitStatus() != 130 || !strings.HasPrefix(stderr.String(), "ptysend: error: ptysend was stopped by interrupt") ||
						!strings.Contains(stderr.String(), "\nhint: ") || strings.Contains(stderr.String(), "still running")) {
					t.Fatalf("stopped %v after its start: %v, %q", at, cmd.ProcessState, stderr.String())
				}
				if r := b.send("--wait-free", "10", "--", "echo free"); r.code != 0 || r.stdout != "free\n" {
					t.Fatalf("stopped %v after its start, ptysend (%v, %q) left the shell busy:\n%v\nscreen:\n%s",
						at, cmd.ProcessState, stderr.String(), r, b.paneText())
				}
			}
		})
	}
}
