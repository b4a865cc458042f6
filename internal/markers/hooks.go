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
	case "fish":
		return fishHooks
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

// fish: the COMMAND event from a fish_preexec handler; the PROMPT event at
// the end of fish_prompt, wrapped (fish draws the left prompt, then the
// line, then the right prompt, and writes nothing printable of its own
// after them while the line is empty). fish redraws the right prompt after
// each key the human types, so it may carry no PROMPT event: it is
// bracketed by OWN and OWN-END instead, and its text is not typing. A
// fish_prompt handler, which runs before each prompt, wraps the prompts
// again when the human redefines them (fish_config, a re-sourced
// config.fish). $status and $pipestatus reach the human's prompts intact.
// fish keeps our lines out of its history by their leading space.
const fishHooks = `function __ptybridge_preexec --on-event fish_preexec
    builtin printf '\e]6973;ptybridge;C;%s\a' $fish_pid
end
function __ptybridge_wrap_prompts --on-event fish_prompt
    if functions -q fish_prompt; and not functions fish_prompt | string match -q '*__ptybridge_left_prompt*'
        functions --erase __ptybridge_left_prompt
        functions --copy fish_prompt __ptybridge_left_prompt
        function fish_prompt
            __ptybridge_left_prompt $argv
            builtin printf '\e]6973;ptybridge;P;%s\a' $fish_pid
        end
    end
    if functions -q fish_right_prompt; and not functions fish_right_prompt | string match -q '*__ptybridge_right_prompt*'
        functions --erase __ptybridge_right_prompt
        functions --copy fish_right_prompt __ptybridge_right_prompt
        function fish_right_prompt
            set -l text (__ptybridge_right_prompt $argv | string collect -N)
            builtin printf '\e]6973;ptybridge;O;%s\a%s\e]6973;ptybridge;o;%s\a' $fish_pid "$text" $fish_pid
        end
    end
end
__ptybridge_wrap_prompts
`

// Shells without hooks get the PROMPT event at the end of PS1 only: any
// byte after it means the human typed, or runs, something.
const posixPromptHook = `case ${PS1-} in *'6973;ptybridge;P;'*) ;; *) PS1=${PS1-}$(printf '\033]6973;ptybridge;P;%s\007' $$) ;; esac
`
