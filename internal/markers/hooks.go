package markers

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

// The hooks print the events the Tracker follows (events.go). They add to
// the human's configuration and replace nothing: PS1 and PROMPT_COMMAND
// keep what the human put there. Installing twice is harmless, and
// installing over the hooks of an older ptybridge (PROMPT and COMMAND
// only) adds the rest.
var (
	// bash: PS1 ends with PROMPT (re-added by a PROMPT_COMMAND that runs
	// after the human's own, in case a prompt framework rewrites PS1), PS0
	// prints COMMAND. HISTIGNORE keeps our lines out of history; the line
	// that installs the hooks is already in it and is deleted.
	//
	// FINISHED comes from the first PROMPT_COMMAND, which sees the
	// command's $? and gives it back to the rest and to PS1. The command
	// line comes from the history, read there rather than in PS0 (a
	// command substitution forks, and PS0 runs before each of ptysend's
	// commands too): and only when the history grew (its next number, \!
	// in a prompt, changed), so a line kept out of it forks nothing and is
	// not taken for the one before.
	//
	//go:embed shell/hooks.bash
	bashHooks string

	// zsh: PROMPT when the line editor starts (after the prompt and any
	// right prompt are drawn), COMMAND with the line from preexec,
	// FINISHED from the first precmd hook (zsh gives every hook the
	// command's $?), and a zshaddhistory hook that refuses our lines. The
	// functions run with zsh's default options (emulate -L), whatever the
	// human's are.
	//
	//go:embed shell/hooks.zsh
	zshHooks string

	// fish: COMMAND from a fish_preexec handler, FINISHED from a
	// fish_postexec one, PROMPT at the end of fish_prompt, wrapped (fish
	// draws the left prompt, the line, then the right prompt, and writes
	// nothing printable of its own after them while the line is empty).
	// fish redraws the right prompt after each key, so it may carry no
	// PROMPT: it is bracketed by OWN and OWN-END instead, and its text is
	// not typing. A fish_prompt handler wraps the prompts again when the
	// human redefines them (fish_config, a re-sourced config.fish).
	// $status and $pipestatus reach the human's prompts intact. fish keeps
	// our lines out of its history by their leading space.
	//
	//go:embed shell/hooks.fish
	fishHooks string

	// Shells without hooks get PROMPT at the end of PS1, and FINISHED with
	// $? at its start (they expand parameters in PS1 when they draw it); no
	// command line and no directory: the relay takes the line from what
	// the terminal echoed, and the directory from /proc. Any byte after
	// PROMPT means the human typed, or runs, something.
	//
	//go:embed shell/hooks.sh
	posixHooks string
)

// Integration returns the shell code that installs ptybridge's hooks in an
// interactive shell, or "" for a shell without hooks. The hooks print
// PROMPT, COMMAND with the command line, FINISHED with the status and the
// working directory; and they keep the lines ptysend types out of the
// shell's history.
//
// shellName is the program as /proc shows it (bash, zsh, dash...);
// runtimeDir is where ptysend's scripts live, for the history filter.
func Integration(shellName, runtimeDir string) string {
	ours := " . '" + runtimeDir + "/"
	return hooks(programName(shellName), ours+"*", ours)
}

// hooks returns the hooks of the shell name. Lines starting with ours are
// kept out of the history: by bash's HISTIGNORE pattern histIgnore, and
// by zsh's own test; bash also deletes the one that installs the hooks.
func hooks(name, histIgnore, ours string) string {
	r := strings.NewReplacer(
		"@HISTIGNORE@", QuotePOSIX(histIgnore),
		"@OURS@", QuotePOSIX(ours),
		"@CONTROLS@", bashControls(),
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

// bashControls lists the control characters as bash words ($'\x01'...),
// for the encoder of the hooks' fields.
func bashControls() string {
	var words []string
	for c := 1; c < 0x20; c++ {
		words = append(words, fmt.Sprintf(`$'\x%02x'`, c))
	}
	return strings.Join(append(words, `$'\x7f'`), " ")
}
