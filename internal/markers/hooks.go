package markers

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Integration returns the shell code that installs ptybridge's hooks in an
// interactive shell, or "" for a shell without hooks. The hooks print the
// events the Tracker follows (events.go): PROMPT, COMMAND with the command
// line, FINISHED with the status and the working directory; and they keep
// the lines ptysend types out of the shell's history. They add to the
// human's configuration and replace nothing: PS1 and PROMPT_COMMAND keep
// what the human put there. Installing twice is harmless, and installing
// over the hooks of an older ptybridge (PROMPT and COMMAND only) adds the
// rest.
//
// shellName is the program as /proc shows it (bash, zsh, dash...);
// runtimeDir is where ptysend's scripts live, for the history filter.
func Integration(shellName, runtimeDir string) string {
	name := strings.TrimPrefix(filepath.Base(shellName), "-")
	switch name {
	case "bash":
		return strings.NewReplacer(
			"@HISTIGNORE@", QuotePOSIX(" . '"+runtimeDir+"/*"),
			"@OURS@", QuotePOSIX(" . '"+runtimeDir+"/"),
			"@CONTROLS@", bashControls(),
			"@MAXLINE@", fmt.Sprint(maxLine)).Replace(bashHooks)
	case "zsh":
		return strings.NewReplacer(
			"@OURS@", QuotePOSIX(" . '"+runtimeDir+"/"),
			"@MAXLINE@", fmt.Sprint(maxLine)).Replace(zshHooks)
	case "fish":
		return strings.ReplaceAll(fishHooks, "@MAXLINE@", fmt.Sprint(maxLine))
	case "sh", "dash", "ksh", "ksh93", "mksh", "ash":
		return posixPromptHook
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

// bash: PS1 ends with the PROMPT event (re-added by a PROMPT_COMMAND that
// runs after the human's own, in case a prompt framework rewrites PS1),
// PS0 prints the COMMAND event when a line starts. HISTIGNORE keeps our
// lines out of history; the line that installs the hooks is already in it
// and is deleted.
//
// The FINISHED event comes from the first PROMPT_COMMAND, which sees the
// command's $? and gives it back to the rest and to PS1. The command line
// comes from the history, read there rather than in PS0 (a command
// substitution forks, and PS0 runs before each of ptysend's commands too):
// and only when the history grew (its next number, \! in a prompt,
// changed), so a line kept out of it (ours, HISTIGNORE, a leading space
// with ignorespace) forks nothing and is not taken for the one before.
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
HISTIGNORE=${HISTIGNORE:+$HISTIGNORE:}@HISTIGNORE@
case $(HISTTIMEFORMAT= builtin history 1 2>/dev/null) in *@OURS@*) builtin history -d -1 2>/dev/null ;; esac
fi
if [ "${__ptybridge_hooks-}" = 1 ]; then
__ptybridge_hooks=2
__ptybridge_bang='\!'
__ptybridge_histn=${__ptybridge_bang@P}
__ptybridge_enc() {
  local s=${1//"%"/%25} c h
  s=${s//";"/%3B}
  if [[ $s == *[[:cntrl:]]* ]]; then
    for c in @CONTROLS@; do
      [[ $s == *"$c"* ]] || continue
      builtin printf -v h %02X "'$c"
      s=${s//"$c"/%$h}
    done
  fi
  __ptybridge_e=$s
}
__ptybridge_done() {
  local s=$? n=${__ptybridge_bang@P} t= d
  if [[ $n != "$__ptybridge_histn" ]]; then
    __ptybridge_histn=$n
    t=$(HISTTIMEFORMAT= builtin history 1 2>/dev/null)
    t=${t#"${t%%[0-9]*}"}
    t=${t#"${t%%[!0-9]*}"}
    t=${t#"*"}
    t=${t#"  "}
  fi
  __ptybridge_enc "$PWD"
  d=$__ptybridge_e
  __ptybridge_enc "${t:0:@MAXLINE@}"
  builtin printf '\e]6973;ptybridge;F;%s;%s;%s;%s\a' "$$" "$s" "$d" "$__ptybridge_e"
  return "$s"
}
if (( BASH_VERSINFO[0] > 5 || BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1 )); then
  PROMPT_COMMAND=(__ptybridge_done "${PROMPT_COMMAND[@]}")
else
  PROMPT_COMMAND=__ptybridge_done${PROMPT_COMMAND:+$'\n'$PROMPT_COMMAND}
fi
fi
`

// zsh: the PROMPT event when the line editor starts (after the prompt and
// any right prompt are drawn), the COMMAND event with the line from
// preexec, the FINISHED event from the first precmd hook (zsh gives every
// hook the command's $?), and a zshaddhistory hook that refuses our
// lines. The functions run with zsh's default options (emulate -L), whatever
// the human's are.
const zshHooks = `if [[ -z ${__ptybridge_hooks-} ]]; then
typeset -g __ptybridge_hooks=1
autoload -Uz add-zle-hook-widget add-zsh-hook
__ptybridge_line_init() { printf '\033]6973;ptybridge;P;%s\007' $$ >/dev/tty }
__ptybridge_preexec() { printf '\033]6973;ptybridge;C;%s\007' $$ }
__ptybridge_history() { [[ $1 != @OURS@* ]] }
add-zle-hook-widget line-init __ptybridge_line_init
add-zsh-hook preexec __ptybridge_preexec
add-zsh-hook zshaddhistory __ptybridge_history
fi
if [[ ${__ptybridge_hooks-} == 1 ]]; then
typeset -g __ptybridge_hooks=2
__ptybridge_enc() {
  emulate -L zsh
  local s=${1//\%/%25} c
  s=${s//;/%3B}
  if [[ $s == *[[:cntrl:]]* ]]; then
    for c in {1..31} 127; do
      s=${s//${(#)c}/%${(l:2::0:)$(( [##16] c ))}}
    done
  fi
  typeset -g __ptybridge_e=$s
}
__ptybridge_preexec() {
  emulate -L zsh
  __ptybridge_enc "${1[1,@MAXLINE@]}"
  builtin printf '\033]6973;ptybridge;C;%s;%s\007' $$ "$__ptybridge_e"
}
__ptybridge_precmd() {
  local s=$?
  emulate -L zsh
  __ptybridge_enc "$PWD"
  builtin printf '\033]6973;ptybridge;F;%s;%s;%s;\007' $$ $s "$__ptybridge_e"
  return $s
}
() {
  emulate -L zsh
  precmd_functions=(__ptybridge_precmd ${precmd_functions:#__ptybridge_precmd})
}
fi
`

// fish: the COMMAND event with the line from a fish_preexec handler, the
// FINISHED event from a fish_postexec one; the PROMPT event at
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
    set -l line (string sub -l @MAXLINE@ -- "$argv" | string collect)
    builtin printf '\e]6973;ptybridge;C;%s;%s\a' $fish_pid (string escape --style=url -- "$line")
end
function __ptybridge_postexec --on-event fish_postexec
    set -l s $status
    builtin printf '\e]6973;ptybridge;F;%s;%s;%s;\a' $fish_pid $s (string escape --style=url -- "$PWD")
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

// Shells without hooks get the PROMPT event at the end of PS1, and the
// FINISHED event at its start, with $? (these shells expand parameters in
// PS1 when they draw it); no command line and no directory: the relay
// takes the line from what the terminal echoed, and the directory from
// /proc. Any byte after the PROMPT event means the human typed, or runs,
// something.
const posixPromptHook = `case ${PS1-} in *'6973;ptybridge;P;'*) ;; *) PS1=${PS1-}$(printf '\033]6973;ptybridge;P;%s\007' $$) ;; esac
case ${PS1-} in *'6973;ptybridge;F;'*) ;; *) PS1=$(printf '\033]6973;ptybridge;F;%s;' $$)'$?'$(printf '\007')${PS1-} ;; esac
`
