package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The human starts fish's builtin read, and the agent's call comes in the
// same instant: before read has drawn its prompt, while fish is between
// the human's Enter and read's line editor, or still reading the line.
// Whatever ptysend sees in that instant (a line typed, a command started,
// read waiting), the terminal is the human's: the only right answer is a
// refusal with nothing typed.
//
// One run is one chance at the race; scripts/stress-race loops it under
// load (go test -run '^TestAgentCallInTheInstantTheHumanStartsFishReadTypesNothing$' -count=200).
func TestAgentCallInTheInstantTheHumanStartsFishReadTypesNothing(t *testing.T) {
	b := integrated(t, withShell(shellByName(t, "fish").path(t)))
	human := b.terms[0]
	mark := filepath.Join(b.dir, "MARK")

	// The human types as soon as the first call returns, as people do:
	// the keys may reach the terminal before fish has drawn its prompt
	// again (typed ahead, which must be refused as well). They show in
	// the pane before the agent's call starts: until they do, the terminal
	// is free and the agent's command may rightly run. Then the agent's
	// call starts and the human presses Enter in the same instant: the
	// call, a few milliseconds from looking at the terminal as it starts,
	// looks while fish takes the Enter, runs its preexec and starts read,
	// or just after; never after waiting for read's prompt.
	human.typeKeys("read x")
	b.waitFor("the human's keys to show", func() bool { return strings.Contains(b.cursorLine(), "read x") })
	call := b.start(false, "--", "touch "+mark)
	human.typeKeys("\r")
	r := call.wait(t)
	t.Logf("ptysend answered: exit %d, %q", r.code, r.stderr)

	if r.code != 75 || !refusal.MatchString(r.stderr) {
		t.Errorf("the terminal is the human's: want exit 75 with an error and a hint; got:\n%v", r)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Errorf("the agent's command ran: %s was created", mark)
	}
	human.typeKeys("human-answer\r")
	human.typeKeys(`echo "<$x>"` + "\r")
	var got string
	b.waitFor("the human's echo of what read got", func() bool {
		for _, l := range b.paneLines() {
			if got = echoedX(l); got != "" {
				return true
			}
		}
		return false
	})
	if got != "<human-answer>" {
		t.Fatalf("read must receive exactly what the human typed: echo \"<$x>\" printed %q; the pane shows:\n%s", got, b.paneText())
	}
	if _, err := os.Stat(mark); err == nil {
		t.Fatalf("the agent's command ran later: %s was created; the pane shows:\n%s", mark, b.paneText())
	}
	if strings.Count(b.paneText(), "[agent]") != 1 { // the first call's, which installed the hooks
		t.Fatalf("the agent's command line showed; the pane shows:\n%s", b.paneText())
	}
}
