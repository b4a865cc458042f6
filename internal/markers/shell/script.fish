# The wrapper of fish (see Script). Unless job control is full, fish runs a
# sourced file's commands in its own process group: Ctrl-C would hit fish
# itself, and fish would look idle while the command runs. Job control is
# full for the command, and a one-shot fish_prompt handler restores the
# human's setting, even when Ctrl-C cancels the rest.
#
# fish's eval prints a syntax error on fish's own stderr (the terminal)
# whatever the redirections: fish --no-execute checks the text first, with
# its message on the command's stderr, and a syntax error gets eval's
# status, 123.
#
# fish has no "<>", and its read does not read a block's descriptor 9: with
# ptysend's fifo, sh writes the StderrDone token and waits for ptysend's line
# in the ack fifo; after END another sh waits for ptysend to close it. Their
# exec lends them a writer of the ack fifo for the instant of the open, which
# must not wait (ptysend may be gone), and lets go of it.
set -l __ptybridge_jc interactive
status is-full-job-control; and set __ptybridge_jc full
status is-no-job-control; and set __ptybridge_jc none
function __ptybridge_restore_@ID@ --on-event fish_prompt -V __ptybridge_jc
    status job-control $__ptybridge_jc
    functions --erase __ptybridge_restore_@ID@
end
set -e __ptybridge_jc
status job-control full
builtin printf '@ERASE@%s\n' @DISPLAY@
builtin printf '\033]6973;ptybridge;S;%s\007' @ID@
set -l __ptybridge_status 123
if builtin printf '%s' @COMMAND@ | command $__fish_bin_dir/fish --no-config --no-execute 2>@STDERR@
    @PAGER@
    eval @COMMAND@@REDIRECTS@
    set __ptybridge_status $status
end
?fifo command /bin/sh -c @STDERR_DONE@ sh @ID@ @STDERR@ @ACK@
builtin printf '\033]6973;ptybridge;E;%s;%d\007' @ID@ $__ptybridge_status
?fifo command /bin/sh -c @ACK_CLOSED@ sh @ACK@
set -e __ptybridge_status
