# ptybridge's hooks for bash (see Integration). Like the others, they add to
# the human's configuration and replace nothing; installing them twice is
# harmless, and installing them over an older ptybridge's (PROMPT and
# COMMAND only) adds the rest.
#
# PS0 prints COMMAND. A PROMPT_COMMAND that runs after the human's own puts
# PROMPT back at the end of PS1, in case a prompt framework rewrote it.
# HISTIGNORE keeps ptysend's lines out of the history; the line that
# installs the hooks is already in it, and is deleted.
#
# The first PROMPT_COMMAND sees the command's $?, prints FINISHED and gives
# $? back to the rest and to PS1. It reads the command line from the
# history, not in PS0 (a command substitution forks, and PS0 runs before
# each of ptysend's commands too), and only when the history grew (\!, its
# next number, changed): a line kept out of it forks nothing and is not
# taken for the one before.
#
# MODE: readline (bash 4.4 and later) draws a mode string before the
# prompt's last line when show-mode-in-prompt is on, at each prompt and at
# each change of vi mode. Ours go first, invisible (\1 \2): K;cmd or K;ins.
# The human's own strings stay after them where they showed; where they did
# not (show-mode-in-prompt off), they still do not.
if [ -z "${__ptybridge_hooks-}" ]; then
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
    for c in $'\x01' $'\x02' $'\x03' $'\x04' $'\x05' $'\x06' $'\x07' $'\x08' $'\x09' $'\x0a' $'\x0b' $'\x0c' $'\x0d' $'\x0e' $'\x0f' $'\x10' $'\x11' $'\x12' $'\x13' $'\x14' $'\x15' $'\x16' $'\x17' $'\x18' $'\x19' $'\x1a' $'\x1b' $'\x1c' $'\x1d' $'\x1e' $'\x1f' $'\x7f'; do
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
if [ "${__ptybridge_hooks-}" = 2 ]; then
__ptybridge_hooks=3
if (( BASH_VERSINFO[0] > 4 || BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4 )); then
__ptybridge_modes() {
  local line show=off cmd= ins= emacs= k='\1\e]6973;ptybridge;K;'$$
  while IFS= read -r line; do
    case $line in
    'set show-mode-in-prompt '*) show=${line##* } ;;
    'set vi-cmd-mode-string '*) cmd=${line#set vi-cmd-mode-string } ;;
    'set vi-ins-mode-string '*) ins=${line#set vi-ins-mode-string } ;;
    'set emacs-mode-string '*) emacs=${line#set emacs-mode-string } ;;
    esac
  done <<<"$(builtin bind -v 2>/dev/null)"
  [[ $show == on ]] || cmd= ins= emacs=
  [[ $cmd == *'6973;ptybridge;K;'* ]] && return
  builtin bind "set vi-cmd-mode-string \"$k;cmd\a\2$cmd\"" 2>/dev/null
  builtin bind "set vi-ins-mode-string \"$k;ins\a\2$ins\"" 2>/dev/null
  builtin bind "set emacs-mode-string \"$k;ins\a\2$emacs\"" 2>/dev/null
  builtin bind 'set show-mode-in-prompt on' 2>/dev/null
}
__ptybridge_modes
unset -f __ptybridge_modes
fi
fi
