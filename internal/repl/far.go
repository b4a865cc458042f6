package repl

import (
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/human"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// A REPL in a far shell (behind ssh, su, sudo...) is started by a far
// call of the session package (FarStarter) and read from the stream as a
// local one, with a weaker readiness check: /proc does not see the far
// REPL, so "it waits for input" is judged from the stream alone. An
// evaluation is over when the cursor line shows the prompt and the
// stream has been quiet for farQuiet since. Output that looks like the
// prompt followed by a pause as long (print(">>> "); time.sleep(1)) ends
// an evaluation early there; a far REPL's death is its END marker (the
// far shell prints it when the REPL exits), and --repl-close sends Ctrl-D,
// then Ctrl-C and Ctrl-\ through the terminal instead of signals.

// FarStarter types the far call that runs command (the REPL state's id)
// in the far shell behind t, and returns the stream it read past READY.
type FarStarter func(rc *relay.Client, t pane.Target, id markers.ID, command string) ([]byte, error)

// farQuiet is how long the stream must be quiet, the prompt showing, for
// a far REPL to be taken as waiting for input.
const farQuiet = 150 * time.Millisecond

func startFar(req Request, rc *relay.Client, st *replState, t pane.Target, start time.Time) (int, error) {
	st.Far, st.Carrier = true, platform.ExecImage(t.PID)
	st.ShellPID, st.TTY = -1, platform.TTYOf(rc.PanePID)
	if bridge.ConfirmRequired(rc.SocketPath()) {
		q := human.Question{Action: "start this REPL in the shared terminal", Text: st.Command}
		if err := human.Ask(req.Bridge, q, req.Bridge.Exe, req.MaxTime); err != nil {
			return 0, err
		}
	}
	rc.Job(st.ID, st.Command) // for the relay's history
	rest, err := req.StartFar(rc, t, st.ID, st.Command)
	if err != nil {
		return 0, err
	}
	r := newREPLRunFrom(req, rc, st, start, rest)
	defer r.stop()
	return r.awaitStart()
}

// checkFar is check's end for a far REPL: the prompt (or continuation
// prompt) shows; the REPL waits for input once the stream is quiet.
func (r *replRun) checkFar(continuing bool, line string, start int) (o outcome, ok, again bool) {
	if !r.farQuiet() {
		return o, false, true
	}
	pid := r.st.PID
	if pid == 0 {
		fg, err := platform.ForegroundPID(r.rc.PanePID)
		if err != nil {
			return o, false, false
		}
		pid = fg // the carrier
	}
	if continuing {
		return outcome{kind: atContinuation, pid: pid}, true, false
	}
	return outcome{kind: atPrompt, pid: pid, before: line[:start]}, true, false
}

// farQuiet reports whether the stream has brought nothing for farQuiet.
func (r *replRun) farQuiet() bool {
	last := r.lastOutput.Load()
	return last == 0 || time.Since(time.Unix(0, last)) >= farQuiet
}

// InTheWay refuses a command while a far REPL of --repl-start runs: the
// far shell's hooks would only say that it runs something.
func InTheWay(b bridge.Bridge, panePID int) error {
	st, err := loadREPL(b)
	if err != nil || st == nil || !st.Far || !st.inForeground(panePID) {
		return nil
	}
	return BusyError(b, panePID, &failure.Error{Msg: "busy"})
}
