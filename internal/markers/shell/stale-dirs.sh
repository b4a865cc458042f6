# Removes, in the first call of a far shell, the private directories of the
# user's far shells that are gone (a far shell cannot remove its own when it
# ends without a trap of the human's): named after a pid ($1 is the shell's
# own) that is not alive, and untouched for an hour (a far shell in another
# pid namespace may share the directory). It runs with sh -c, as one line.
for d in $(find "${TMPDIR:-/tmp}" -maxdepth 1 -name "ptybridge-[0-9]*.??????" -user "$(id -u)" -mmin +60 2>/dev/null); do p=${d##*/ptybridge-}; p=${p%%.*}; case $p in ""|*[!0-9]*) continue;; esac; [ "$p" != "$1" ] && ! kill -0 "$p" 2>/dev/null && rm -rf "$d"; done; :
