# The wrapper of the POSIX shells (see Script). ?fifo lines are for
# ptysend's stderr fifo, ?tty lines for a plain stderr (the terminal).
#
# errexit left on by the command would end the human's shell at their next
# failing command: it is turned off again, and a note added to the
# command's stderr. With the fifo, "1<>" opens it for reading too, so that
# the StderrDone token never waits for a reader nor gets the shell a
# SIGPIPE, ptysend gone or not; then the shell waits in
# the ack fifo for a line, prints END, and waits again, until ptysend, having
# seen END, has taken the terminal's answers from its input and closes the
# ack fifo. That one is opened before the command, while ptysend, which
# has just typed the line, holds its writing end: the read returns once
# ptysend is gone. (Opened at the end, it could wait for ever for a writer;
# and bash and dash keep a copy of a descriptor that a redirection closes,
# so the shell cannot lend itself a writer.)
@BUILTIN@ printf '@ERASE@%s\n' @DISPLAY@
__ptybridge_opts=$-
@BUILTIN@ printf '\033]6973;ptybridge;S;%s\007' @ID@
?fifo {
@RUN@
__ptybridge_status=$?
?tty case $-/$__ptybridge_opts in *e*/*e*) ;; *e*/*) set +e; @BUILTIN@ printf '%s\n' @ERREXIT_NOTE@ >>@STDERR@ ;; esac
?fifo { case $-/$__ptybridge_opts in *e*/*e*) ;; *e*/*) set +e; @BUILTIN@ printf '%s\n' @ERREXIT_NOTE@ ;; esac; @BUILTIN@ printf '\033]6973;ptybridge;D;%s\007' @ID@; } 1<>@STDERR@
?fifo @BUILTIN@ read -r __ptybridge_ack <&9 || :
@BUILTIN@ printf '\033]6973;ptybridge;E;%s;%d\007' @ID@ "$__ptybridge_status"
?fifo @BUILTIN@ read -r __ptybridge_ack <&9 || :
?fifo } 9<@ACK@
unset __ptybridge_opts __ptybridge_status __ptybridge_ack
