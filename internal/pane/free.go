package pane

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// settleLimit is how long a call waits for the shell's prompt when an
// earlier call has just ended (the prompt is drawn a moment after the END
// marker) or the human's line may still clear. Past it, the pane is busy.
const settleLimit = 500 * time.Millisecond

// AwaitFreePrompt decides, from the shell's own events relayed by the
// shell integration, whether the shell in the pane waits at an empty
// prompt. needHooks is true when the shell has no integration yet (it
// never spoke): then only /proc vouches for it, and this call installs it.
func AwaitFreePrompt(rc *relay.Client, b bridge.Bridge, shellPID int, shellName string) (needHooks bool, err error) {
	needHooks, err = shellSaysItIsFree(rc, b, shellPID, shellName)
	if err == nil && platform.TypedAhead(shellPID) {
		return false, HalfTypedError
	}
	return needHooks, err
}

var HalfTypedError = &failure.Error{
	Code: failure.ExitBusy,
	Msg: "the user has typed at the shared terminal's prompt and not pressed Enter (or runs a command of theirs); " +
		"nothing was typed, so their input stays intact",
	Hint: "ask the user to finish their line (Enter) or clear it (Ctrl-U) in the ptybridge terminal, then retry",
}

func shellSaysItIsFree(rc *relay.Client, b bridge.Bridge, shellPID int, shellName string) (needHooks bool, err error) {
	if rc.Shell.PID != shellPID {
		return true, nil
	}
	tr := markers.TrackerFrom(rc.Shell)
	deadline := time.Now().Add(settleLimit)
	buf := make([]byte, 4096)
	for tr.Snapshot().State != markers.StatePrompt {
		rc.SetReadDeadline(deadline)
		n, err := rc.Read(buf)
		tr.Write(buf[:n])
		if errors.Is(err, os.ErrDeadlineExceeded) {
			break
		}
		if err != nil {
			rc.SetReadDeadline(time.Time{})
			return false, err
		}
	}
	rc.SetReadDeadline(time.Time{})
	switch tr.Snapshot().State {
	case markers.StateRunning:
		// A shell exec'd by the human keeps the pid of the one it
		// replaced, and the last event; it is at its prompt, with no
		// hooks, if it sleeps in its line editor. The program the hooks
		// were installed in sleeping there runs a line editor of the
		// user's command instead (fish's read, bash's read -e).
		if platform.AtLineEditor(shellPID) && !hookedExec(b, shellPID) {
			return true, nil
		}
		return false, &failure.Error{
			Code: failure.ExitBusy,
			Msg:  fmt.Sprintf("the shared terminal is busy: its shell (%s) is running a command of the user's, so nothing was typed", shellName),
			Hint: "ask the user to let it finish, or to press Ctrl-C in the ptybridge terminal, then retry",
		}
	case markers.StateTyped:
		return false, HalfTypedError
	}
	return false, nil
}

// RecordHooked notes that the hooks are installed in the shell pid runs.
func RecordHooked(b bridge.Bridge, pid int) {
	if img := platform.ExecImage(pid); img != "" {
		os.WriteFile(b.File(".hooked"), []byte(img), 0o600)
	}
}

// hookedExec reports whether pid still runs the program the hooks were
// installed in. Unknown means no, as before the record existed.
func hookedExec(b bridge.Bridge, pid int) bool {
	rec, err := os.ReadFile(b.File(".hooked"))
	img := platform.ExecImage(pid)
	return err == nil && img != "" && string(rec) == img
}

// CopyModeError: keys sent now would become copy-mode commands.
var CopyModeError = &failure.Error{
	Code: failure.ExitBusy,
	Msg:  "the user is scrolling in the shared terminal (tmux copy mode), so nothing was typed",
	Hint: "ask the user to leave copy mode (press q in the ptybridge terminal), then retry",
}
