case ${PS1-} in *'6973;ptybridge;P;'*) ;; *) PS1=${PS1-}$(printf '\033]6973;ptybridge;P;%s\007' $$) ;; esac
case ${PS1-} in *'6973;ptybridge;F;'*) ;; *) PS1=$(printf '\033]6973;ptybridge;F;%s;' $$)'$?'$(printf '\007')${PS1-} ;; esac
