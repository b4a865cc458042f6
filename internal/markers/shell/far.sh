# The far wrapper of zsh and the POSIX shells (see FarScript). The
# command's stderr goes to a loop that copies it to the terminal in R/r
# frames: zsh's is a process substitution (in @RUN@), which zsh waits for
# by itself; the others' is stderr-loop.sh (?loop lines).
{
: >"$__ptybridge_d"/w
unset __ptybridge_w
?first @HOOKS@
?first @STALE_DIRS@ "$$"
?first @BUILTIN@ printf '\033]6973;ptybridge;I;%s;%s;%s;%s\007' @ID@ "$$" "$(command id -un 2>/dev/null)" "$(command uname -n 2>/dev/null)"
?clear-stdin true >"$__ptybridge_d"/i
?read-stdin command stty -echo; @BUILTIN@ printf '\033]6973;ptybridge;Z;%s\007' @ID@; command base64 -d >"$__ptybridge_d"/i; command stty echo
@BUILTIN@ printf '@ERASE@%s\n' @DISPLAY@
__ptybridge_opts=$-
?loop command mkfifo -m 600 "$__ptybridge_d"/e.@ID@ "$__ptybridge_d"/k.@ID@ && command sh -c @STDERR_LOOP@ sh "$__ptybridge_d" @ID@
@BUILTIN@ printf '\033]6973;ptybridge;S;%s\007' @ID@
?loop {
@RUN@
__ptybridge_status=$?
case $-/$__ptybridge_opts in *e*/*e*) ;; *e*/*) set +e; @BUILTIN@ printf '\033]6973;ptybridge;R;@ID@\007%s\n\033]6973;ptybridge;r;@ID@\007' @ERREXIT_NOTE@ >&2 ;; esac
?loop read -r __ptybridge_ep <&9
?loop } 9<>"$__ptybridge_d"/k.@ID@
?stdin : >"$__ptybridge_d"/i
@BUILTIN@ printf '\033]6973;ptybridge;E;%s;%d\007' @ID@ "$__ptybridge_status"
unset __ptybridge_opts __ptybridge_status __ptybridge_ep
}
