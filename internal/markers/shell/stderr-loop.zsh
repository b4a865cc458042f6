# stderr-loop.sh in zsh, for a process substitution: it reads the pipe on
# its stdin and writes to the terminal.
set +eu; while builtin printf '\033]6973;ptybridge;R;%s\007' @ID@ >"$__ptybridge_d"/f && LC_ALL=C command dd bs=16384 count=1 2>"$__ptybridge_d"/s >>"$__ptybridge_d"/f; do IFS= read -r __ptybridge_r <"$__ptybridge_d"/s; case $__ptybridge_r in 0+0*) break;; esac; builtin printf '\033]6973;ptybridge;r;%s\007' @ID@ >>"$__ptybridge_d"/f; command cat "$__ptybridge_d"/f; done; : >"$__ptybridge_d"/f
