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
