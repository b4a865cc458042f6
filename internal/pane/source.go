package pane

import (
	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// TypeSourceLine types the short line that has the shell source script,
// then Enter ("\r", as send-keys Enter). The relay types it over the
// connection we hold: no tmux process on the path of a call (one would
// cost ~4-5 ms of a ~10 ms call). Keys written to the pane's input never
// become copy-mode commands, but the human's scrolled view would drift
// under the output, so a pane in copy mode is refused.
func TypeSourceLine(rc *relay.Client, b bridge.Bridge, sh markers.Shell, script string) error {
	if b.InCopyMode() {
		return CopyModeError
	}
	return rc.Type(markers.SourceLine(sh, script) + "\r")
}
