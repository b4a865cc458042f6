# The far wrapper of bash, which reads its input a byte per system call:
# the fixed parts are the functions of far-hooks.bash, and the command runs
# in between at the top level, so that declare, local and the like behave
# as typed.
{
unset __ptybridge_w
?first @HOOKS@
?first @STALE_DIRS@ "$$"
?first builtin printf '\033]6973;ptybridge;I;%s;%s;%s;%s\007' @ID@ "$$" "$(command id -un 2>/dev/null)" "$(command uname -n 2>/dev/null)"
?clear-stdin true >"$__ptybridge_d"/i
?read-stdin command stty -echo; builtin printf '\033]6973;ptybridge;Z;%s\007' @ID@; command base64 -d >"$__ptybridge_d"/i; command stty echo
__ptybridge_pre @ID@ @ROWS@ @DISPLAY@
@RUN@
?loop __ptybridge_post @ID@ $? w
?terminal __ptybridge_post @ID@ $?
}
