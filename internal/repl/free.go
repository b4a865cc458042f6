package repl

import (
	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/human"
	"github.com/ptybridge/ptybridge/internal/pane"
)

// untilFree makes attempts at --repl-start or --repl-eval until one is
// not refused because of what the human is doing, for up to --wait-free
// (see pane.FreeWaiter); without it, the first attempt's outcome stands.
func untilFree(req Request, attempt func() (int, error)) (int, error) {
	w := pane.NewFreeWaiter(req.Bridge, req.WaitFree, req.Stderr)
	for {
		status, err := attempt()
		if !w.Again(err) {
			return status, w.Final(err)
		}
	}
}

// approveStart asks the human, when the session wants it (ptybridge
// --confirm), whether to start the REPL, and then makes sure the shell is
// still free. The stream is read meanwhile (the run's pump).
func (r *replRun) approveStart() error {
	if !bridge.ConfirmRequired(r.rc.SocketPath()) {
		return nil
	}
	if r.req.Bridge.InCopyMode() {
		return pane.CopyModeError
	}
	q := human.Question{Action: "start this REPL in the shared terminal", Text: r.st.Command}
	if err := human.Ask(r.req.Bridge, q, r.req.Bridge.Exe, r.req.MaxTime); err != nil {
		return err
	}
	if _, _, err := pane.IdleShell(r.rc.PanePID); err != nil {
		return pane.ProgramInTheWay(err, r.rc.PanePID)
	}
	return nil
}

// approveEval asks the human, when the session wants it, whether to
// evaluate expr, and then makes sure the REPL is still ready for it.
func (r *replRun) approveEval(expr string) error {
	if !bridge.ConfirmRequired(r.rc.SocketPath()) {
		return nil
	}
	if r.req.Bridge.InCopyMode() {
		return pane.CopyModeError
	}
	q := human.Question{Action: "evaluate this in the REPL " + r.st.Program, Text: expr}
	if err := human.Ask(r.req.Bridge, q, r.req.Bridge.Exe, r.req.MaxTime); err != nil {
		return err
	}
	return r.checkReady()
}
