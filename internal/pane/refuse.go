package pane

import (
	"fmt"
	"strings"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// The states a look settles in, and its refusals. The setters return
// read's results: settle says that the refusal may clear in a moment.

// free settles the state of a shell at an empty prompt: idle, unless keys
// wait in the input queue of pid's terminal or the human scrolls back.
func (s *State) free(pid int) (settle bool, err error) {
	if platform.TypedAhead(pid) {
		return s.halfTyped()
	}
	return s.idle()
}

func (s *State) idle() (settle bool, err error) {
	s.Kind = Idle
	if s.CopyMode {
		s.Kind, s.Refusal = CopyMode, CopyModeError
	}
	return false, nil
}

func (s *State) halfTyped() (settle bool, err error) {
	s.Kind, s.Refusal, s.HalfTyped = HalfTyped, HalfTypedError, true
	return true, nil
}

func (s *State) shellBusy() (settle bool, err error) {
	s.Kind = Busy
	s.Refusal = &failure.Error{
		Code: failure.ExitBusy,
		Msg:  fmt.Sprintf("the shared terminal is busy: its shell (%s) is running a command of the user's, so nothing was typed", s.Shell.Name),
		Hint: "ask the user to let it finish, or to press Ctrl-C in the ptybridge terminal, then retry",
	}
	return true, nil
}

// busy: a program holds the terminal. A short-lived one (a prompt
// framework's helper) may be gone in a moment.
func (s *State) busy(program string, args []string) (settle bool, err error) {
	s.Kind, s.Refusal = Busy, busyError(program, args)
	return true, nil
}

func busyError(program string, args []string) error {
	return &failure.Error{
		Code: failure.ExitBusy,
		Msg:  fmt.Sprintf("the shared terminal is busy: %q is running in it, so nothing was typed", program),
		Hint: busyHint(program, args),
	}
}

// shortCommand names a carrier running a command: "ssh web1 make".
func shortCommand(args []string) string {
	s := strings.Join(args, " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// HalfTypedError: the human's line must never be spliced into.
var HalfTypedError = &failure.Error{
	Code: failure.ExitBusy,
	Msg: "the user has typed at the shared terminal's prompt and not pressed Enter (or runs a command of theirs); " +
		"nothing was typed, so their input stays intact",
	Hint: "ask the user to finish their line (Enter) or clear it (Ctrl-U) in the ptybridge terminal, then retry",
}

// CopyModeError: keys sent now would drift the human's scrolled view.
var CopyModeError = &failure.Error{
	Code: failure.ExitBusy,
	Msg:  "the user is scrolling in the shared terminal (tmux copy mode), so nothing was typed",
	Hint: "ask the user to leave copy mode (press q in the ptybridge terminal), then retry",
}

// replInTheWay refuses a shell command, or a second REPL, while the
// agent's REPL runs: it does not clear by itself (exit 125).
func replInTheWay(r *REPLRecord) error {
	return &failure.Error{
		Msg: "the REPL " + r.Program + " started with --repl-start is already running in the shared terminal, so nothing was typed",
		Hint: "evaluate in it with ptysend --repl-eval EXPR, or leave it with ptysend --repl-close first " +
			"(ptysend drives one REPL at a time)",
	}
}

func unsupportedShellError(shell string) error {
	return &failure.Error{
		Msg: fmt.Sprintf("the shared terminal runs %s, a shell ptysend cannot drive", shell),
		Hint: fmt.Sprintf("ptysend supports %s: ask the user to start one of them in the ptybridge terminal (e.g. type bash there), or to leave %s, then retry",
			markers.Supported, shell),
	}
}
