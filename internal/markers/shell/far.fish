# The far wrapper of fish, as script.fish. fish announces no job it waited
# for: the stderr loop is one.
begin
true >$__ptybridge_d/w
?first @HOOKS@
?first @STALE_DIRS@ $fish_pid
?first builtin printf '\033]6973;ptybridge;I;%s;%s;%s;%s\007' @ID@ $fish_pid (command id -un 2>/dev/null) (command uname -n 2>/dev/null)
?clear-stdin true >$__ptybridge_d/i
?read-stdin command stty -echo; builtin printf '\033]6973;ptybridge;Z;%s\007' @ID@; command base64 -d >$__ptybridge_d/i; command stty echo
set -l __ptybridge_jc interactive
status is-full-job-control; and set __ptybridge_jc full
status is-no-job-control; and set __ptybridge_jc none
function __ptybridge_restore_@ID@ --on-event fish_prompt -V __ptybridge_jc
    status job-control $__ptybridge_jc
    functions --erase __ptybridge_restore_@ID@
end
status job-control full
builtin printf '@ERASE@%s\n' @DISPLAY@
?loop command mkfifo -m 600 $__ptybridge_d/e.@ID@; and command sh -c @STDERR_LOOP@ sh $__ptybridge_d @ID@ &
?loop set -g __ptybridge_ep $last_pid
builtin printf '\033]6973;ptybridge;S;%s\007' @ID@
begin
    if builtin printf '%s' @COMMAND@ | command $__fish_bin_dir/fish --no-config --no-execute
        @PAGER@
        eval @COMMAND@@REDIRECTS@
        set -g __ptybridge_status $status
    else
        set -g __ptybridge_status 123
    end
?loop end 2>$__ptybridge_d/e.@ID@
?terminal end
?loop wait $__ptybridge_ep
?stdin true >$__ptybridge_d/i
builtin printf '\033]6973;ptybridge;E;%s;%d\007' @ID@ $__ptybridge_status
set -e __ptybridge_status; set -e __ptybridge_ep
end
