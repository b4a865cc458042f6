package relay

import (
	"fmt"
	"os"
	"strings"
)

// The relay records the shared pane beside its socket (<session>.pane:
// "PANE_ID PANE_PID"), so that what needs the shared shell without a
// turn at the pane (starting a job in the shell's directory and
// environment) finds it with no tmux process. The record goes with the
// relay's socket: a relay started for a new shell writes the new one.

// PaneFile is the record's path for the relay socket at socketPath.
func PaneFile(socketPath string) string {
	return strings.TrimSuffix(socketPath, ".sock") + ".pane"
}

// writePaneFile records the pane, atomically.
func writePaneFile(socketPath, paneID string, panePID int) {
	path := PaneFile(socketPath)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(fmt.Sprintf("%s %d\n", paneID, panePID)), 0o600); err != nil {
		return
	}
	if os.Rename(tmp, path) != nil {
		os.Remove(tmp)
	}
}

// ReadPaneFile reads the pane the relay of socketPath recorded.
func ReadPaneFile(socketPath string) (paneID string, panePID int, err error) {
	b, err := os.ReadFile(PaneFile(socketPath))
	if err != nil {
		return "", 0, err
	}
	if _, err := fmt.Sscanf(string(b), "%s %d", &paneID, &panePID); err != nil {
		return "", 0, fmt.Errorf("bad pane record %q", b)
	}
	return paneID, panePID, nil
}
