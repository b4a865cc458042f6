# ptybridge's hooks for fish (see hooks.bash). COMMAND comes from
# fish_preexec, FINISHED from fish_postexec, PROMPT at the end of a wrapped
# fish_prompt (fish draws the left prompt, the line, then the right prompt,
# and writes nothing printable after them while the line is empty). fish
# redraws the right prompt after each key, so it carries no PROMPT: OWN and
# OWN-END bracket it, and its text is not typing. The fish_prompt handler
# wraps the prompts again when the human redefines them (fish_config, a
# re-sourced config.fish). $status and $pipestatus reach the human's
# prompts intact. fish keeps ptysend's lines out of its history by their
# leading space. MODE says K;cmd or K;ins as the bind mode changes: every
# mode but insert is vi's command mode where an insert mode exists (the
# emacs bindings' one mode is "default" too).
function __ptybridge_preexec --on-event fish_preexec
    set -l line (string sub -l @MAXLINE@ -- "$argv" | string collect)
    builtin printf '\e]6973;ptybridge;C;%s;%s\a' $fish_pid (string escape --style=url -- "$line")
end
function __ptybridge_postexec --on-event fish_postexec
    set -l s $status
    builtin printf '\e]6973;ptybridge;F;%s;%s;%s;\a' $fish_pid $s (string escape --style=url -- "$PWD")
end
function __ptybridge_mode --on-variable fish_bind_mode
    set -l m ins
    if test "$fish_bind_mode" != insert; and bind -M insert \e >/dev/null 2>&1
        set m cmd
    end
    builtin printf '\e]6973;ptybridge;K;%s;%s\a' $fish_pid $m
end
function __ptybridge_wrap_prompts --on-event fish_prompt
    if functions -q fish_prompt; and not functions fish_prompt | string match -q '*__ptybridge_left_prompt*'
        functions --erase __ptybridge_left_prompt
        functions --copy fish_prompt __ptybridge_left_prompt
        function fish_prompt
            __ptybridge_left_prompt $argv
            builtin printf '\e]6973;ptybridge;P;%s\a' $fish_pid
        end
    end
    if functions -q fish_right_prompt; and not functions fish_right_prompt | string match -q '*__ptybridge_right_prompt*'
        functions --erase __ptybridge_right_prompt
        functions --copy fish_right_prompt __ptybridge_right_prompt
        function fish_right_prompt
            set -l text (__ptybridge_right_prompt $argv | string collect -N)
            builtin printf '\e]6973;ptybridge;O;%s\a%s\e]6973;ptybridge;o;%s\a' $fish_pid "$text" $fish_pid
        end
    end
end
__ptybridge_wrap_prompts
