package relay

import (
	"os"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/tmux"
)

// recordExit writes the exit status of the pane's process, which has
// ended, to path: a bridge opened with a command (ptybridge -- ssh web1)
// tells the human how it ended (see bridge.CommandEnded).
func recordExit(path, pane string) {
	// tmux learns of the death a moment after a pidfd does, and of the
	// status (which it reaps) at times seconds later on a loaded machine.
	for range 150 {
		out, err := tmux.Run("display-message", "-p", "-t", pane, "#{pane_dead} #{pane_dead_status}")
		if err != nil {
			return
		}
		if f := strings.Fields(out); len(f) == 2 && f[0] == "1" {
			status := f[1]
			os.WriteFile(path, []byte(status+"\n"), 0o600)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
