package pane

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
)

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

// BusyHint is what to ask the user when program (run with args) holds
// the shared terminal.
func BusyHint(program string, args []string) string { return busyHint(program, args) }

// IsInterpreter reports whether program, run with args, is an
// interpreter reading commands from the terminal (python3 without a
// script, node, irb...): a REPL of the user's.
func IsInterpreter(program string, args []string) bool {
	return quitKeys[programKey(program)] == "repl" && quitKey(program, args) != keyCtrlC
}

// shortCommand names a carrier running a command: "ssh web1 make".
func shortCommand(args []string) string {
	s := strings.Join(args, " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// contextUntil is a context that ends at deadline.
func contextUntil(deadline time.Time) (context.Context, context.CancelFunc) {
	return context.WithDeadline(context.Background(), deadline)
}
