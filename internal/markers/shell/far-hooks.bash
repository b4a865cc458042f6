# What bash's far hooks add to hooks.bash. The probe's line goes out of the
# history too (the first loader's line, after it, already went).
#
# The loader reads the payload with read -s, which turns the echo off
# itself and then prints READY as its prompt, and decodes it into a
# variable that the typed line evals (see EscapedLines).
#
# The wrapper's functions are defined afresh at each first call, outside
# the hooks' guard: a shell hooked by another ptysend gets this one's.
#   __ptybridge_pre ID ROWS LINE erases the loader's echo, shows the [agent]
#     line, notes the options and prints START;
#   __ptybridge_loop ID is the stderr loop of a process substitution, in
#     bash alone while no stderr comes: a builtin read takes the first
#     character, dd only what more is there at once;
#   __ptybridge_post ID STATUS [w] turns a set -e left on off again, waits
#     for the loop (w) and prints END.
case $(HISTTIMEFORMAT= builtin history 1 2>/dev/null) in *'ptybridge;K;'*) builtin history -d -1 2>/dev/null ;; esac
__ptybridge_l() {
  { [ -d "${__ptybridge_d-}" ] || __ptybridge_d=$(command mktemp -d "${TMPDIR:-/tmp}/ptybridge-$$.XXXXXX"); } || return
  IFS= builtin read -rs -d . -p $'\033]6973;ptybridge;Y;'"$1"$'\007' __ptybridge_p || return
  builtin printf -v __ptybridge_w '%b' "${__ptybridge_p//$'\n'/}"
  unset __ptybridge_p
}
__ptybridge_pre() {
  builtin printf '\033[%dA\r\033[J%s\n' "$2" "$3"
  __ptybridge_opts=$-
  builtin printf '\033]6973;ptybridge;S;%s\007' "$1"
}
__ptybridge_loop() {
  set +eu
  local c f="$__ptybridge_d/f"
  while IFS= builtin read -r -N 1 c; do
    { builtin printf '\033]6973;ptybridge;R;%s\007%s' "$1" "$c"
      if IFS= builtin read -t 0; then LC_ALL=C command dd bs=16380 count=1 2>/dev/null; fi
      builtin printf '\033]6973;ptybridge;r;%s\007' "$1"; } >"$f"
    command cat "$f"
  done
  : >"$f"
}
__ptybridge_post() {
  case $-/$__ptybridge_opts in *e*/*e*) ;; *e*/*) set +e; builtin printf '\033]6973;ptybridge;R;%s\007%s\n\033]6973;ptybridge;r;%s\007' "$1" @ERREXIT_NOTE@ "$1" >&2 ;; esac
  [ "$3" = w ] && wait $! 2>/dev/null
  builtin printf '\033]6973;ptybridge;E;%s;%d\007' "$1" "$2"
  unset __ptybridge_opts
}
