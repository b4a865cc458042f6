package bridge

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// ptybridge --linger: the session outlives its last terminal for a while, its state intact.
// tmux's hooks keep the time: when the last terminal leaves, the server-wide hook of ours that
// ends the bridge sessions no terminal shows (attachArgs) runs the session's lingerHookOption
// instead. That background shell of the server's writes the end into the lingering file and, at
// that end, ends the session unless a terminal came back (which removes the file) or a later
// detach set a later end.
//
// Not a client-detached hook of the session's own: tmux 3.3a runs that hook in the server's
// "best" session rather than the one the terminal left, the most recently active (the user's
// other session they just typed in, the hidden session of a job's spare window), and the bridge
// then went on with nobody watching, or ended. The server-wide hook runs whichever session is
// best (while none has a client-detached hook of its own), and looks at every session.

// lingerScript is run with the tmux server's socket, the seconds to linger, the lingering file
// and the session, by the hook, which runs on every terminal's leaving: a session already
// lingering keeps its end. A terminal that attaches removes the file at once (Linger's
// client-attached hook waits for it); one that came back between the first look and the file's
// writing is seen by the second look. So the end stands only while no terminal came back.
const lingerScript = `[ -e "$3" ] && exit 0
attached() { [ "$(tmux -S "$1" display-message -p -t "=$4:" '#{session_attached}')" != 0 ]; }
attached "$@" && exit 0
end=$(( $(date +%s) + $2 ))
echo "$end" >"$3"
if attached "$@"; then rm -f "$3"; exit 0; fi
sleep "$2"
[ "$(cat "$3" 2>/dev/null)" = "$end" ] || exit 0
rm -f "$3"
tmux -S "$1" kill-session -t "=$4"
`

func (b Bridge) lingerFile() string { return b.File(".lingering") }

// lingerOption marks a session that lingers: the hook that ends a session its last terminal left
// runs its lingerHookOption instead (attachArgs).
const (
	lingerOption     = "@ptybridge_linger"
	lingerHookOption = "@ptybridge_linger_hook"
)

// Linger makes the session outlive its last terminal by d, instead of ending with it.
func (b Bridge) Linger(d time.Duration) error {
	script := b.File(".linger.sh")
	if err := os.WriteFile(script, []byte(lingerScript), 0o600); err != nil {
		return err
	}
	format := func(s string) string { return markers.QuotePOSIX(strings.ReplaceAll(s, "#", "##")) }
	linger := fmt.Sprintf("run-shell -b \"sh %s #{socket_path} %d %s %s\"",
		format(script), max(1, int(d.Seconds())), format(b.lingerFile()), format(b.Name))
	_, err := tmux.Run("set-option", "-t", b.target(), lingerOption, "on",
		";", "set-option", "-t", b.target(), lingerHookOption, linger,
		";", "set-hook", "-t", b.target(), "client-attached", "run-shell \"rm -f "+format(b.lingerFile())+"\"")
	return err
}

// LingeringUntil is when a lingering session with no terminal attached ends. A file whose end
// has passed is a tmux server's that died lingering: no more.
func (b Bridge) LingeringUntil() (time.Time, bool) {
	data, err := os.ReadFile(b.lingerFile())
	if err != nil {
		return time.Time{}, false
	}
	end, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
	until := time.Unix(end, 0)
	return until, err == nil && time.Now().Before(until.Add(time.Second))
}
