exec <"$1/e.$2" >&2; rm -f "$1/e.$2"
while printf '\033]6973;ptybridge;R;%s\007' "$2" >"$1/f" && LC_ALL=C dd bs=16384 count=1 2>"$1/s" >>"$1/f"; do
read r <"$1/s"; case $r in 0+0*) break;; esac
printf '\033]6973;ptybridge;r;%s\007' "$2" >>"$1/f"; cat "$1/f"
done
: >"$1/f"
