package repl

import (
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
