package pane

import (
	"fmt"
	"strings"
)

// The hint of a busy pane says how the human leaves the program: Ctrl-C
// does not stop a pager or an editor (less ignores it), so it names the
// program's own key where it is well known, else only "quit it".
const (
	keyCtrlC = "Ctrl-C"
	keyQ     = "press q there"
)

// quitKeys maps a program (programKey) to how the human leaves it.
var quitKeys = map[string]string{
	// Pagers, and programs that show their text in one.
	"less": keyQ, "more": keyQ, "most": keyQ, "pg": keyQ, "man": keyQ,
	"git": "press q there if it shows a pager, else Ctrl-C",
	// Editors.
	"vim": ":q", "vi": ":q", "nvim": ":q", "view": ":q", "vimdiff": ":q", "ex": ":q",
	"nano": "press Ctrl-X there", "pico": "press Ctrl-X there",
	"emacs": "press Ctrl-X Ctrl-C there",
	// Full-screen monitors.
	"top": keyQ, "htop": keyQ, "btop": keyQ, "atop": keyQ, "iotop": keyQ, "nmon": keyQ,
	// Interpreters and clients that read commands from the terminal:
	// end of input leaves them (see repls).
	"python": "repl", "node": "repl", "irb": "repl", "ghci": "repl", "lua": "repl",
	"psql": "press Ctrl-D (or type \\q) there", "mysql": "press Ctrl-D (or type exit) there",
	"sqlite": "press Ctrl-D (or type .quit) there",
	// A remote or nested login session.
	"ssh": "type exit (or press Ctrl-D) there", "su": "type exit (or press Ctrl-D) there",
	// Commands that run until they are stopped, or just take long.
	"sleep": keyCtrlC, "tail": keyCtrlC, "ping": keyCtrlC, "watch": keyCtrlC, "yes": keyCtrlC,
	"cat": keyCtrlC, "make": keyCtrlC, "find": keyCtrlC, "grep": keyCtrlC, "dd": keyCtrlC,
	"curl": keyCtrlC, "wget": keyCtrlC, "rsync": keyCtrlC, "cp": keyCtrlC,
	// A shell here runs a script: an interactive one is ptysend's.
	"sh": keyCtrlC, "bash": keyCtrlC, "dash": keyCtrlC, "zsh": keyCtrlC, "fish": keyCtrlC, "ksh": keyCtrlC,
}

// busyHint says what to ask the user when program holds the terminal.
func busyHint(program string, args []string) string {
	switch key := quitKey(program, args); key {
	case "":
		return fmt.Sprintf("ask the user to let %s finish, or to quit it, in the ptybridge terminal, then retry", program)
	case keyCtrlC:
		return fmt.Sprintf("ask the user to let %s finish, or to stop it with Ctrl-C in the ptybridge terminal, then retry", program)
	case ":q":
		return fmt.Sprintf("ask the user to quit %s in the ptybridge terminal (type :q and Enter there; :wq saves first), then retry", program)
	default:
		return fmt.Sprintf("ask the user to quit %s in the ptybridge terminal (%s), then retry", program, key)
	}
}

// quitKey is how to leave program, "" when it is not known.
func quitKey(program string, args []string) string {
	key := quitKeys[programKey(program)]
	if key != "repl" {
		return key
	}
	// python3 and its like run a script as often as a REPL.
	for _, a := range args[min(1, len(args)):] {
		if a == "-i" {
			break
		}
		if a == "-" || !strings.HasPrefix(a, "-") || a == "-c" || a == "-m" || a == "-e" {
			return keyCtrlC
		}
	}
	return "press Ctrl-D there"
}

// isInterpreter reports whether program, run with args, is an interpreter
// reading commands from the terminal (python3 without a script, node,
// irb...): a REPL of the user's.
func isInterpreter(program string, args []string) bool {
	return quitKeys[programKey(program)] == "repl" && quitKey(program, args) != keyCtrlC
}

// programKey is a program's name without its variant and version
// suffixes: vim.basic is vim, python3.11 python, sqlite3 sqlite.
func programKey(program string) string {
	name, _, _ := strings.Cut(program, ".")
	return strings.TrimRight(name, "0123456789")
}
