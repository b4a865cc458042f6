set -l __ptybridge_jc interactive
status is-full-job-control; and set __ptybridge_jc full
status is-no-job-control; and set __ptybridge_jc none
function __ptybridge_restore_@ID@ --on-event fish_prompt -V __ptybridge_jc
    status job-control $__ptybridge_jc
    functions --erase __ptybridge_restore_@ID@
end
set -e __ptybridge_jc
status job-control full
builtin printf '%s\n' @DISPLAY@
builtin printf '\033]6973;ptybridge;S;%s\007' @ID@
set -l __ptybridge_status 123
if builtin printf '%s' @COMMAND@ | command $__fish_bin_dir/fish --no-config --no-execute 2>@STDERR@
    @PAGER@
    eval @COMMAND@@REDIRECTS@
    set __ptybridge_status $status
end
?fifo command /bin/sh -c @STDERR_DONE@ sh @ID@ @STDERR@ @ACK@
builtin printf '\033]6973;ptybridge;E;%s;%d\007' @ID@ $__ptybridge_status
set -e __ptybridge_status
