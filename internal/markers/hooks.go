package markers

import (
	"strconv"
	"strings"
)

// Integration returns the shell code that installs ptybridge's hooks in an
// interactive shell, or "" for a shell without hooks. The hooks print the
// events the Tracker follows (events.go), and keep the lines ptysend types
// out of the shell's history.
//
// shellName is the program as /proc shows it (bash, zsh, dash...);
// runtimeDir is where ptysend's scripts live, for the history filter.
func Integration(shellName, runtimeDir string) string {
	ours := " . '" + runtimeDir + "/"
	return hooks(programName(shellName), ours+"*", ours)
}

// hooks returns the hooks of the shell name. Our lines, which start with
// ours, stay out of bash's history by the HISTIGNORE pattern histIgnore
// (bash deletes the line that installs the hooks, already in it), and out
// of zsh's by a zshaddhistory hook.
func hooks(name, histIgnore, ours string) string {
	switch name {
	case "sh", "dash", "ksh", "ksh93", "mksh", "ash":
		name = "sh"
	case "bash", "zsh", "fish":
	default:
		return ""
	}
	return strings.NewReplacer(
		"@HISTIGNORE@", QuotePOSIX(histIgnore),
		"@OURS@", QuotePOSIX(ours),
		"@MAXLINE@", strconv.Itoa(maxLine),
	).Replace(shellFile("hooks." + name))
}
