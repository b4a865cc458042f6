package markers

import (
	_ "embed"
	"strconv"
	"strings"
)

// The hooks add to the human's configuration and replace nothing (PS1 and
// PROMPT_COMMAND keep what the human put there). Installing twice is
// harmless, and installing over the hooks of an older ptybridge (PROMPT
// and COMMAND only) adds the rest.
var (
	// bash: a PROMPT_COMMAND that runs after the human's own puts PROMPT
	// back at the end of PS1, in case a prompt framework rewrote it. The
	// first PROMPT_COMMAND sees the command's $?, prints FINISHED and gives
	// $? back. It reads the command line from the history, not in PS0 (a
	// command substitution forks, and PS0 runs before each of ptysend's
	// commands too), and only when the history grew (\! changed), so a line
	// kept out of it forks nothing and is not taken for the one before.
	//
	//go:embed shell/hooks.bash
	bashHooks string

	// zsh: PROMPT comes from line-init, once the prompt and any right
	// prompt are drawn; FINISHED from the first precmd hook (zsh gives
	// every hook the command's $?). The functions run with zsh's default
	// options (emulate -L), whatever the human's are.
	//
	//go:embed shell/hooks.zsh
	zshHooks string

	// fish: PROMPT ends a wrapped fish_prompt (fish draws the left prompt,
	// the line, then the right prompt, and writes nothing printable after
	// them while the line is empty). fish redraws the right prompt after
	// each key, so OWN and OWN-END bracket it: its text is not typing. A
	// fish_prompt handler wraps the prompts again when the human redefines
	// them. $status and $pipestatus reach the human's prompts intact; our
	// lines stay out of the history by their leading space.
	//
	//go:embed shell/hooks.fish
	fishHooks string

	// Other shells expand parameters in PS1 when they draw it: FINISHED
	// with $? starts it, PROMPT ends it. The relay takes the command line
	// from what the terminal echoed, and the directory from /proc.
	//
	//go:embed shell/hooks.sh
	posixHooks string
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
	r := strings.NewReplacer(
		"@HISTIGNORE@", QuotePOSIX(histIgnore),
		"@OURS@", QuotePOSIX(ours),
		"@MAXLINE@", strconv.Itoa(maxLine))
	switch name {
	case "bash":
		return r.Replace(bashHooks)
	case "zsh":
		return r.Replace(zshHooks)
	case "fish":
		return r.Replace(fishHooks)
	case "sh", "dash", "ksh", "ksh93", "mksh", "ash":
		return posixHooks
	}
	return ""
}
