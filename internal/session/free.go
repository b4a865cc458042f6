package session

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// settleLimit is how long a call waits for the shell's prompt when an
// earlier call has just ended (the prompt is drawn a moment after the END
// marker) or the human's line may still clear. Past it, the pane is busy.
const settleLimit = 500 * time.Millisecond

// awaitFreePrompt decides, from the shell's own events relayed by the
// shell integration, whether the shell in the pane waits at an empty
// prompt. needHooks is true when the shell has no integration yet (it
// never spoke): then only /proc vouches for it, and this call installs it.
func awaitFreePrompt(rc *relayClient, shellPID int, shellName string) (needHooks bool, err error) {
	if rc.Shell.PID != shellPID {
		return true, nil
	}
	tr := markers.TrackerFrom(rc.Shell)
	deadline := time.Now().Add(settleLimit)
	buf := make([]byte, 4096)
	for tr.Snapshot().State != markers.StatePrompt {
		rc.conn.SetReadDeadline(deadline)
		n, err := rc.Read(buf)
		tr.Write(buf[:n])
		if errors.Is(err, os.ErrDeadlineExceeded) {
			break
		}
		if err != nil {
			rc.conn.SetReadDeadline(time.Time{})
			return false, err
		}
	}
	rc.conn.SetReadDeadline(time.Time{})
	switch tr.Snapshot().State {
	case markers.StateRunning:
		return false, &Error{
			Msg:  fmt.Sprintf("the shared terminal is busy: its shell (%s) is running a command of the user's, so nothing was typed", shellName),
			Hint: "ask the user to let it finish, or to press Ctrl-C in the ptybridge terminal, then retry",
		}
	case markers.StateTyped:
		return false, &Error{
			Msg: "the user has typed at the shared terminal's prompt and not pressed Enter (or runs a command of theirs); " +
				"nothing was typed, so their input stays intact",
			Hint: "ask the user to finish their line (Enter) or clear it (Ctrl-U) in the ptybridge terminal, then retry",
		}
	}
	return false, nil
}

// copyModeError: keys sent now would become copy-mode commands.
var copyModeError = &Error{
	Msg:  "the user is scrolling in the shared terminal (tmux copy mode), so nothing was typed",
	Hint: "ask the user to leave copy mode (press q in the ptybridge terminal), then retry",
}
