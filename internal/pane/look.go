package pane

import "github.com/ptybridge/ptybridge/internal/markers"

// What ptysend --status says of a program in the foreground of the pane,
// with the same knowledge as a refusal: how the user leaves it, and
// whether it is an interpreter's prompt, a shell ptysend drives, or one
// it cannot.

// BusyHint is what to ask the user when program (run with args) holds
// the shared terminal.
func BusyHint(program string, args []string) string { return busyHint(program, args) }

// IsInterpreter reports whether program, run with args, is an
// interpreter reading commands from the terminal (python3 without a
// script, node, irb...): a REPL of the user's.
func IsInterpreter(program string, args []string) bool {
	return quitKeys[programKey(program)] == "repl" && quitKey(program, args) != keyCtrlC
}

// IsDrivableShell reports whether program, run with args, is an
// interactive shell that ptysend can type into.
func IsDrivableShell(program string, args []string) bool {
	_, ok := markers.ShellFor(program)
	return ok && interactive(args)
}

// IsUnsupportedShell reports whether the process pid is a shell that
// ptysend cannot drive (tcsh, nu...), and names it.
func IsUnsupportedShell(pid int) (string, bool) { return unsupportedShell(pid) }
