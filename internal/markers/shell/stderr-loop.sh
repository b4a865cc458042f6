# Copies the command's stderr from the fifo $1/e.$2 to the terminal, piece
# by piece as it comes, each piece in an R/r frame written with one write()
# (cat of a file of at most 16 KiB and the two markers), so that the
# command's stdout never lands inside a frame. Plain sh with dd and cat, run
# as a child: it does not depend on the human's shell or options. It ends
# when the command's side of the fifo is closed.
#
# dash's job control announces a job it waited for: there (?dash lines) the
# loop runs in the background of a child sh that exits at once, and tells
# its end through the fifo $1/k.$2, which the wrapper holds open read-write
# from before the command starts: the loop's open never blocks, and the
# wrapper reads the loop's line after the last piece of stderr.
?dash (exec 3>"$1/k.$2"; rm -f "$1/k.$2"
exec <"$1/e.$2" >&2; rm -f "$1/e.$2"
while printf '\033]6973;ptybridge;R;%s\007' "$2" >"$1/f" && LC_ALL=C dd bs=16384 count=1 2>"$1/s" >>"$1/f"; do
read r <"$1/s"; case $r in 0+0*) break;; esac
printf '\033]6973;ptybridge;r;%s\007' "$2" >>"$1/f"; cat "$1/f"
done
: >"$1/f"
?dash echo >&3) &
