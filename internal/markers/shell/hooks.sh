# The hooks of sh, dash, ksh and ash, which expand parameters in PS1 when
# they draw it: FINISHED with $? starts it, PROMPT ends it. No command line
# and no directory: the relay takes the line from what the terminal echoed,
# and the directory from /proc.
case ${PS1-} in *'6973;ptybridge;P;'*) ;; *) PS1=${PS1-}$(printf '\033]6973;ptybridge;P;%s\007' $$) ;; esac
case ${PS1-} in *'6973;ptybridge;F;'*) ;; *) PS1=$(printf '\033]6973;ptybridge;F;%s;' $$)'$?'$(printf '\007')${PS1-} ;; esac
