package session

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"

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
func awaitFreePrompt(rc *relayClient, b Bridge, shellPID int, shellName string) (needHooks bool, err error) {
	needHooks, err = shellSaysItIsFree(rc, b, shellPID, shellName)
	if err == nil && typedAhead(shellPID) {
		return false, halfTypedError
	}
	return needHooks, err
}

// typedAhead reports keys the human typed that the shell has not read yet:
// they wait in the terminal's input queue, typed during the previous
// command, and appear on the line only once the shell reads them.
func typedAhead(shellPID int) bool {
	tty := openTTY(ttyOf(shellPID))
	if tty == nil {
		return false
	}
	defer tty.Close()
	n, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ)
	return err == nil && n > 0
}

var halfTypedError = &Error{
	Msg: "the user has typed at the shared terminal's prompt and not pressed Enter (or runs a command of theirs); " +
		"nothing was typed, so their input stays intact",
	Hint: "ask the user to finish their line (Enter) or clear it (Ctrl-U) in the ptybridge terminal, then retry",
}

func shellSaysItIsFree(rc *relayClient, b Bridge, shellPID int, shellName string) (needHooks bool, err error) {
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
		// A shell exec'd by the human keeps the pid of the one it
		// replaced, and the last event; it is at its prompt, with no
		// hooks, if it sleeps in its line editor. The program the hooks
		// were installed in sleeping there runs a line editor of the
		// user's command instead (fish's read, bash's read -e).
		if atLineEditor(shellPID) && !hookedExec(b, shellPID) {
			return true, nil
		}
		return false, &Error{
			Msg:  fmt.Sprintf("the shared terminal is busy: its shell (%s) is running a command of the user's, so nothing was typed", shellName),
			Hint: "ask the user to let it finish, or to press Ctrl-C in the ptybridge terminal, then retry",
		}
	case markers.StateTyped:
		return false, halfTypedError
	}
	return false, nil
}

// hookedPath records the exec of the shell the hooks were last installed
// in (see execImage).
func (b Bridge) hookedPath() string {
	return strings.TrimSuffix(b.socketPath(), ".sock") + ".hooked"
}

// recordHooked notes that the hooks are installed in the shell pid runs.
func recordHooked(b Bridge, pid int) {
	if img := execImage(pid); img != "" {
		os.WriteFile(b.hookedPath(), []byte(img), 0o600)
	}
}

// hookedExec reports whether pid still runs the program the hooks were
// installed in. Unknown means no, as before the record existed.
func hookedExec(b Bridge, pid int) bool {
	rec, err := os.ReadFile(b.hookedPath())
	img := execImage(pid)
	return err == nil && img != "" && string(rec) == img
}

// execImage tells one exec of process pid from another: its pid and the
// addresses of its code and stack, which the kernel places anew, at
// random, for each program it execs. "" when /proc does not show them.
func execImage(pid int) string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	i := bytes.LastIndexByte(stat, ')')
	if err != nil || i < 0 {
		return ""
	}
	// Fields 26 to 28 of stat: startcode, endcode, startstack.
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 26 || fields[23] == "0" {
		return ""
	}
	return fmt.Sprintf("%d %s", pid, strings.Join(fields[23:26], " "))
}

// copyModeError: keys sent now would become copy-mode commands.
var copyModeError = &Error{
	Msg:  "the user is scrolling in the shared terminal (tmux copy mode), so nothing was typed",
	Hint: "ask the user to leave copy mode (press q in the ptybridge terminal), then retry",
}

// atLineEditor reports whether the shell waits for keys in its line
// editor: asleep in poll or select with the terminal in non-canonical
// mode. A loop of builtins runs; a builtin read sleeps in a cooked read.
func atLineEditor(shellPID int) bool {
	tty := openTTY(ttyOf(shellPID))
	if tty == nil {
		return false
	}
	defer tty.Close()
	wchan := readTrimmed(fmt.Sprintf("/proc/%d/wchan", shellPID))
	return taskState(fmt.Sprintf("/proc/%d/stat", shellPID)) == 'S' &&
		hasAnyPrefix(wchan, pollWaits) && lineEditorMode(tty)
}
