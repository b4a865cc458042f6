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
// tmux's hooks keep the time: when the last terminal detaches, a background shell of the
// server's writes the end into the lingering file and, at that end, ends the session unless a
// terminal came back (which removes the file) or a later detach set a later end.

// lingerScript is run by the client-detached hook with the terminals still attached, the tmux
// server's socket, the seconds to linger, the lingering file and the session.
const lingerScript = `[ "$1" -eq 0 ] || exit 0
end=$(( $(date +%s) + $3 ))
echo "$end" >"$4"
sleep "$3"
[ "$(cat "$4" 2>/dev/null)" = "$end" ] || exit 0
rm -f "$4"
tmux -S "$2" kill-session -t "=$5"
`

func (b Bridge) lingerFile() string { return b.File(".lingering") }

// lingerOption marks a session that lingers: attaching keeps destroy-unattached off there.
const lingerOption = "@ptybridge_linger"

// Linger makes the session outlive its last terminal by d, instead of ending with it.
func (b Bridge) Linger(d time.Duration) error {
	script := b.File(".linger.sh")
	if err := os.WriteFile(script, []byte(lingerScript), 0o600); err != nil {
		return err
	}
	format := func(s string) string { return markers.QuotePOSIX(strings.ReplaceAll(s, "#", "##")) }
	detached := fmt.Sprintf("run-shell -b \"sh %s #{session_attached} #{socket_path} %d %s %s\"",
		format(script), max(1, int(d.Seconds())), format(b.lingerFile()), format(b.Name))
	_, err := tmux.Run("set-option", "-t", b.target(), lingerOption, "on",
		";", "set-option", "-t", b.target(), "destroy-unattached", "off",
		";", "set-hook", "-t", b.target(), "client-detached", detached,
		";", "set-hook", "-t", b.target(), "client-attached", "run-shell -b \"rm -f "+format(b.lingerFile())+"\"")
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
