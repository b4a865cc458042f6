package e2e

import (
	"testing"
)

// Right after the first of two terminals closes, a call still gets its output and its status,
// the second terminal being smaller or larger (tmux resizes the window to it as the first goes).
func TestACallRightAfterOneOfTwoTerminalsCloses(t *testing.T) {
	for i := range 5 {
		b := startBridge(t)
		must(t, b.openTerminal().Resize(uint16(80+40*(i%2)*2), uint16(24+i)))
		b.waitFor("two terminals attached", func() bool {
			out, _ := b.tmux("display-message", "-p", "-t", "="+b.name+":", "#{session_attached}")
			return out == "2\n"
		})
		b.terms[0].close()
		r := b.send("--", "echo still-here; sh -c 'exit 3'")
		if r.code != 3 || r.stdout != "still-here\n" {
			t.Fatalf("run %d: want the output and exit 3 right after a terminal closed, got:\n%v", i, r)
		}
		if es := b.history(10); len(es) == 0 || es[len(es)-1].Status == nil || *es[len(es)-1].Status != 3 {
			t.Fatalf("run %d: the history must keep the status: %+v", i, es)
		}
	}
}
