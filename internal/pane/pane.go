package pane

import (
	"fmt"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// IdleShell finds the shell waiting at its prompt in the pane: the
// foreground process must be an interactive shell we can drive. Anything
// else (an editor, a pager, a running command, a script) means the pane
// is busy, and typing into it would type into that program.
//
// A program in the foreground may be short-lived (the shell's startup
// files, a prompt framework's helpers), so the verdict "busy" is only
// given when it lasts settleLimit; an idle shell answers at once.
func IdleShell(panePID int) (int, markers.Shell, error) {
	deadline := time.Now().Add(settleLimit)
	for {
		pid, sh, err := idleShellNow(panePID)
		if err == nil || time.Now().After(deadline) {
			return pid, sh, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func idleShellNow(panePID int) (int, markers.Shell, error) {
	fg, err := platform.ForegroundPID(panePID)
	if err != nil {
		return 0, 0, &failure.Error{
			Msg:  "cannot inspect the shared terminal's processes: " + err.Error(),
			Hint: "ptysend needs /proc (Linux) and must run as the same user as ptybridge",
		}
	}
	name := platform.Name(fg)
	sh, ok := markers.ShellFor(name)
	if ok && interactive(platform.Args(fg)) {
		return fg, sh, nil
	}
	if foreign, ok := unsupportedShell(fg); ok {
		return 0, 0, unsupportedShellError(foreign)
	}
	return 0, 0, busyError(name, platform.Args(fg))
}

// unsupportedShell names the shell we cannot drive that runs as pid, if
// any. A shell written in a scripting language (xonsh) runs as its
// interpreter, python3, but the kernel names the process after the script
// (comm), so both names are checked.
func unsupportedShell(pid int) (string, bool) {
	for _, name := range []string{platform.Name(pid), platform.Comm(pid)} {
		if markers.Unsupported(name) {
			return name, true
		}
	}
	return "", false
}

// interactive reports whether a shell's arguments leave it reading
// commands from the terminal: no script, no -c.
func interactive(args []string) bool {
	for _, a := range args[min(1, len(args)):] {
		if a == "-c" || !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}

func busyError(program string, args []string) error {
	return &failure.Error{
		Code: failure.ExitBusy,
		Msg:  fmt.Sprintf("the shared terminal is busy: %q is running in it, so nothing was typed", program),
		Hint: busyHint(program, args),
	}
}

func unsupportedShellError(shell string) error {
	return &failure.Error{
		Msg: fmt.Sprintf("the shared terminal runs %s, a shell ptysend cannot drive", shell),
		Hint: fmt.Sprintf("ptysend supports %s: ask the user to start one of them in the ptybridge terminal (e.g. type bash there), or to leave %s, then retry",
			markers.Supported, shell),
	}
}
