package bridge

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// A bridge opened with a command (ptybridge -- ssh web1) runs it in the
// shared pane instead of the user's shell. When it ends, the pane closes,
// which ends the session; its exit status is recorded in <session>.exit,
// where each of the human's ptybridge terminals reads how it ended.

// commandArgs is new-window's shell command for command: a sh with job
// control (-m) runs it as the terminal's foreground process group (ptysend
// sees ssh, not sh, in the foreground) and records its exit status in
// exitFile; none for the default shell.
func commandArgs(command []string, exitFile string) []string {
	if len(command) == 0 {
		return nil
	}
	words := []string{"exec", "sh", "-mc", markers.QuotePOSIX(commandRunner), markers.QuotePOSIX(exitFile)}
	for _, w := range command {
		words = append(words, markers.QuotePOSIX(w))
	}
	return []string{strings.Join(words, " ")}
}

// commandRunner is the script of that sh: $0 is the exit file.
const commandRunner = `"$@"; s=$?; printf '%s\n' "$s" >"$0"; exit "$s"`

// IsCommandRunner reports whether argv is commandArgs' sh.
func IsCommandRunner(argv []string) bool {
	return len(argv) >= 4 && argv[0] == "sh" && argv[1] == "-mc" && argv[2] == commandRunner
}

func (b Bridge) Exists() bool {
	out, err := tmux.Run("display-message", "-p", "-t", b.target(), "#{session_name}")
	return err == nil && strings.TrimSpace(out) == b.Name
}

func (b Bridge) ExitFile() string { return b.File(".exit") }

// ClosePane closes the pane (and the session, when it was its last) once
// its process has ended.
func (b Bridge) ClosePane(pane string, panePID int) {
	watch, stopWatching := context.WithCancel(context.Background())
	defer stopWatching()
	if exited := platform.WatchExit(watch, panePID); exited != nil {
		select {
		case <-exited:
		case <-time.After(2 * time.Second):
		}
	}
	tmux.Run("kill-pane", "-t", pane)
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

// AttachAndWait attaches the human's terminal as a child process until it
// detaches or the session ends, so that the caller can say how the
// bridge's command ended.
func (b Bridge) AttachAndWait() error {
	signal.Ignore(syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTSTP)
	defer signal.Reset(syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTSTP)
	return tmux.Foreground(b.attachArgs()...)
}
