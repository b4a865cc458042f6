# ptybridge's hooks for zsh (see hooks.bash). PROMPT comes from line-init,
# once the prompt and any right prompt are drawn; COMMAND with the line from
# preexec; FINISHED from the first precmd hook (zsh gives every hook the
# command's $?). zshaddhistory refuses ptysend's lines. The functions run
# with zsh's default options (emulate -L), whatever the human's are. MODE
# says K;cmd (vi command mode) or K;ins as each line starts (after PROMPT)
# and as its keymap changes (Esc, i).
if [[ -z ${__ptybridge_hooks-} ]]; then
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
if [[ ${__ptybridge_hooks-} == 2 ]]; then
typeset -g __ptybridge_hooks=3
__ptybridge_keymap() {
  emulate -L zsh
  local m=ins
  [[ $KEYMAP == (vicmd|viopp|visual) ]] && m=cmd
  printf '\033]6973;ptybridge;K;%s;%s\007' $$ $m >/dev/tty
}
add-zle-hook-widget line-init __ptybridge_keymap
add-zle-hook-widget keymap-select __ptybridge_keymap
fi
