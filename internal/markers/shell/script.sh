@BUILTIN@ printf '%s\n' @DISPLAY@
__ptybridge_opts=$-
@BUILTIN@ printf '\033]6973;ptybridge;S;%s\007' @ID@
?fifo {
@RUN@
__ptybridge_status=$?
?tty case $-/$__ptybridge_opts in *e*/*e*) ;; *e*/*) set +e; @BUILTIN@ printf '%s\n' @ERREXIT_NOTE@ >>@STDERR@ ;; esac
?fifo { case $-/$__ptybridge_opts in *e*/*e*) ;; *e*/*) set +e; @BUILTIN@ printf '%s\n' @ERREXIT_NOTE@ ;; esac; @BUILTIN@ printf '\033]6973;ptybridge;D;%s\007' @ID@; } 1<>@STDERR@
?fifo @BUILTIN@ read -r __ptybridge_ack <&9 || :
?fifo } 9<@ACK@
@BUILTIN@ printf '\033]6973;ptybridge;E;%s;%d\007' @ID@ "$__ptybridge_status"
unset __ptybridge_opts __ptybridge_status __ptybridge_ack
