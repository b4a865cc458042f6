package bridge

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// A bridge opened with a command (ptybridge --session web1 -- ssh web1)
// runs it in the shared pane instead of the user's shell. When it ends,
// the pane is closed as when the human's shell ends, which ends the
// session; its exit status is recorded in the runtime directory
// (<session>.exit), where each of the human's ptybridge terminals reads
// it to say how the command ended.

// commandArgs is the shell command of new-window: the command's words
// quoted for tmux's default-shell -c, or none for the default shell.
func commandArgs(command []string) []string {
	if len(command) == 0 {
		return nil
	}
	quoted := make([]string, len(command))
	for i, w := range command {
		quoted[i] = markers.QuotePOSIX(w)
	}
	return []string{"exec " + strings.Join(quoted, " ")}
}

// Exists reports whether the bridge session runs.
func (b Bridge) Exists() bool {
	out, err := tmux.Run("display-message", "-p", "-t", b.target(), "#{session_name}")
	return err == nil && strings.TrimSpace(out) == b.Name
}

// ExitFile is where the command's exit status is recorded.
func (b Bridge) ExitFile() string { return b.File(".exit") }

// CloseDeadPane records the exit status of the pane's process, which has
// ended, and closes the pane (and with it the session, when it was its
// last).
func (b Bridge) CloseDeadPane(pane string) {
	RecordExit(b.ExitFile(), pane)
	tmux.Run("kill-pane", "-t", pane)
}

// RecordExit writes the dead pane's exit status to path.
func RecordExit(path, pane string) {
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

// CommandEnded is what the human's terminal says once the bridge's
// command ended, or "" when the record is not newer than since.
func (b Bridge) CommandEnded(command []string, sinceNano int64) string {
	fi, err := os.Stat(b.ExitFile())
	if err != nil || fi.ModTime().UnixNano() < sinceNano {
		if b.Exists() { // the human detached: the bridge goes on
			return ""
		}
		return fmt.Sprintf("ptybridge: %s ended; the shared terminal %s is closed", strings.Join(command, " "), b.Name)
	}
	status, _ := os.ReadFile(b.ExitFile())
	return fmt.Sprintf("ptybridge: %s ended with exit status %s; the shared terminal %s is closed",
		strings.Join(command, " "), strings.TrimSpace(string(status)), b.Name)
}

// AttachAndWait attaches the human's terminal as a child process and
// returns when it detaches or the session ends, so that the caller can
// say how the bridge's command ended.
func (b Bridge) AttachAndWait() error {
	signal.Ignore(syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTSTP)
	defer signal.Reset(syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTSTP)
	return tmux.Foreground(b.attachArgs()...)
}
