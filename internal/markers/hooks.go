package markers

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Integration returns the shell code that installs ptybridge's hooks in an
// interactive shell, or "" for a shell without hooks. The hooks print the
// PROMPT and COMMAND events (see Tracker) and keep the lines ptysend types
// out of the shell's history. They add to the human's configuration and
// replace nothing: PS1 and PROMPT_COMMAND keep what the human put there.
// Installing twice is harmless.
//
// shellName is the program as /proc shows it (bash, zsh, dash...);
// runtimeDir is where ptysend's scripts live, for the history filter.
func Integration(shellName, runtimeDir string) string {
	name := strings.TrimPrefix(filepath.Base(shellName), "-")
	switch name {
	case "bash":
		return fmt.Sprintf(bashHooks, QuotePOSIX(" . '"+runtimeDir+"/*"), QuotePOSIX(" . '"+runtimeDir+"/"))
	case "zsh":
		return fmt.Sprintf(zshHooks, QuotePOSIX(" . '"+runtimeDir+"/"))
	case "sh", "dash", "ksh", "ksh93", "mksh", "ash":
		return posixPromptHook
	}
	return ""
}

// bash: PS1 ends with the PROMPT event (re-added by a PROMPT_COMMAND that
// runs after the human's own, in case a prompt framework rewrites PS1),
// PS0 prints the COMMAND event when a line starts. HISTIGNORE keeps our
// lines out of history; the line that installs the hooks is already in it
// and is deleted.
const bashHooks = `if [ -z "${__ptybridge_hooks-}" ]; then
__ptybridge_hooks=1
__ptybridge_prompt() {
  case $PS1 in *'6973;ptybridge;P;'*) ;; *) PS1=$PS1'\[\e]6973;ptybridge;P;'$$'\a\]' ;; esac
  case ${PS0-} in *'6973;ptybridge;C;'*) ;; *) PS0=${PS0-}'\e]6973;ptybridge;C;'$$'\a' ;; esac
}
__ptybridge_prompt
if (( BASH_VERSINFO[0] > 5 || BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1 )); then
  PROMPT_COMMAND+=(__ptybridge_prompt)
else
  PROMPT_COMMAND=${PROMPT_COMMAND:+$PROMPT_COMMAND$'\n'}__ptybridge_prompt
fi
HISTIGNORE=${HISTIGNORE:+$HISTIGNORE:}%s
case $(HISTTIMEFORMAT= builtin history 1 2>/dev/null) in *%s*) builtin history -d -1 2>/dev/null ;; esac
fi
`

// zsh: the PROMPT event when the line editor starts (after the prompt and
// any right prompt are drawn), the COMMAND event from preexec, and a
// zshaddhistory hook that refuses our lines.
const zshHooks = `if [[ -z ${__ptybridge_hooks-} ]]; then
typeset -g __ptybridge_hooks=1
autoload -Uz add-zle-hook-widget add-zsh-hook
__ptybridge_line_init() { printf '\033]6973;ptybridge;P;%%s\007' $$ >/dev/tty }
__ptybridge_preexec() { printf '\033]6973;ptybridge;C;%%s\007' $$ }
__ptybridge_history() { [[ $1 != %s* ]] }
add-zle-hook-widget line-init __ptybridge_line_init
add-zsh-hook preexec __ptybridge_preexec
add-zsh-hook zshaddhistory __ptybridge_history
fi
`

// Shells without hooks get the PROMPT event at the end of PS1 only: any
// byte after it means the human typed, or runs, something.
const posixPromptHook = `case ${PS1-} in *'6973;ptybridge;P;'*) ;; *) PS1=${PS1-}$(printf '\033]6973;ptybridge;P;%s\007' $$) ;; esac
`
