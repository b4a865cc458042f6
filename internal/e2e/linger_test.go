package e2e

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// ptybridge --linger: the shared shell outlives the last terminal for a while, its state intact;
// meanwhile nobody watches, so ptysend types nothing; a terminal that opens it again finds it as
// it was; past the time, the session ends.
func TestALingeringSessionWaitsForTheUserAndThenEnds(t *testing.T) {
	b := newWorld(t)
	human := b.openTerminal("--linger", "8s")
	b.waitReady()
	b.run("--", "PTB_KEPT=state-kept")

	human.close()
	b.waitFor("the session to linger", func() bool { return strings.Contains(b.send("--status").stdout, "lingering until") })
	r := b.send("--", "echo typed")
	if r.code != 75 || !strings.Contains(r.stderr, "nobody would see it") || !strings.Contains(r.stderr, "hint: ask the user to reopen it") {
		t.Fatalf("want a refusal (75) saying nobody watches, got:\n%v", r)
	}
	if s := b.send("--sessions"); !strings.Contains(s.stdout, "lingering until") {
		t.Fatalf("--sessions must say it lingers:\n%v", s)
	}

	b.openTerminal()
	b.waitReady()
	if got := b.run("--", `echo "$PTB_KEPT"`); got != "state-kept\n" {
		t.Fatalf("reopened, the shell must be as it was: got %q", got)
	}

	b.terms[1].close()
	b.waitFor("the session to end after lingering", func() bool {
		_, err := b.tmux("has-session", "-t", "="+b.name)
		return err != nil
	})
}

// Reported: a lingering bridge that had run and stopped a job did not linger once its last
// terminal closed. tmux ran the detach's hook in the session most recently made, the hidden one
// of the job's spare window, rather than in the bridge's (bridge/linger.go).
func TestALingeringSessionLingersAfterAJobRanAndStopped(t *testing.T) {
	b := newWorld(t)
	t.Cleanup(func() { killLingerScripts(currentUser(), b.dir) })
	human := b.openTerminal("--linger", "30m")
	b.waitReady()
	b.run("--", "PTB_KEPT=state-kept")
	b.run("--job", "x", "--", "sleep 100")
	// Its status may be lost (130 or 125: a race of the job's window, not this test's matter).
	if r := b.send("--job-stop", "x"); !strings.Contains(r.stderr, "Ctrl-C (SIGINT) stopped it") {
		t.Fatalf("--job-stop: %v", r)
	}
	b.waitFor("the job's relay to make the spare window's session", func() bool {
		_, err := b.tmux("has-session", "-t", "="+b.name+"-spare")
		return err == nil
	})

	human.close()
	b.waitFor("the session to linger", func() bool { return strings.Contains(b.send("--status").stdout, "lingering until") })
	if _, err := b.tmux("has-session", "-t", "="+b.name); err != nil {
		t.Fatalf("the session ended: %v", err)
	}
	b.openTerminal()
	b.waitReady()
	if got := b.run("--", `echo "$PTB_KEPT"`); got != "state-kept\n" {
		t.Fatalf("reopened, the shell must be as it was: got %q", got)
	}
}

// tmux 3.3a runs a detach's hooks in the most recently active session: the user's own, when they
// typed in it last. The bridge's own hook did not run then (1 run in 4): the session went on
// with nobody watching, and ptysend typed into it.
func TestALingeringSessionLingersWhileTheUserWorksInAnotherSession(t *testing.T) {
	tmuxPath, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		b := newWorld(t)
		human := b.openTerminal("--linger", "30m")
		b.waitReady()
		b.mustTmux("new-session", "-d", "-s", "users-own")
		own := b.openTerminalOf(tmuxPath, "attach-session", "-t", "=users-own")
		b.waitFor("the user's other terminal", func() bool { return strings.Count(b.mustTmux("list-clients"), "\n") == 1 })
		own.typeKeys("echo typed-in-their-own-session\r")
		b.waitFor("the keys to reach the user's session", func() bool {
			out, _ := b.tmux("capture-pane", "-p", "-t", "=users-own:")
			return strings.Contains(out, "\ntyped-in-their-own-session")
		})

		human.close()
		b.waitFor("the session to linger", func() bool { return strings.Contains(b.send("--status").stdout, "lingering until") })
		if r := b.send("--", "echo typed"); r.code != 75 {
			t.Fatalf("run %d: nobody watches the bridge: want a refusal (75), got:\n%v", i, r)
		}
		killLingerScripts(currentUser(), b.dir)
		b.cleanup()
	}
}

// A terminal that comes back as the last one leaves is not taken for gone: the linger's clock,
// started by the leaving, must neither refuse the calls it watches nor end the session under it.
func TestATerminalBackAtOnceStopsTheLinger(t *testing.T) {
	b := newWorld(t)
	t.Cleanup(func() { killLingerScripts(currentUser(), b.dir) })
	human := b.openTerminal("--linger", "1s")
	b.waitReady()
	for i := range 5 {
		human.close()
		human = b.openTerminal()
		b.waitReady()
		time.Sleep(1500 * time.Millisecond) // past the linger time
		if r := b.send("--", "echo watched"); r.code != 0 || r.stdout != "watched\n" {
			t.Fatalf("round %d: the terminal is back: the call must run, got:\n%v", i, r)
		}
	}
}
