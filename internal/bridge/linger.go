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
//
// tmux 3.3a runs a client-detached hook, and expands its formats, in the server's "best"
// session rather than the one the client left: the most recently active, such as the hidden
// session of a job's spare window, made after the human attached (the hook of the bridge's own
// session then never ran, and the session ended instead of lingering). So the script asks
// for the bridge session's terminals itself, and the hook is set on the spare's session too
// (LingerHookOn).

// lingerScript is run by the client-detached hook with the tmux server's socket, the seconds to
// linger, the lingering file and the session.
const lingerScript = `n=$(tmux -S "$1" display-message -p -t "=$4:" '#{session_attached}') || exit 0
[ "$n" -eq 0 ] || exit 0
end=$(( $(date +%s) + $2 ))
echo "$end" >"$3"
sleep "$2"
[ "$(cat "$3" 2>/dev/null)" = "$end" ] || exit 0
rm -f "$3"
tmux -S "$1" kill-session -t "=$4"
`

func (b Bridge) lingerFile() string { return b.File(".lingering") }

// lingerOption marks a session that lingers: the hook that ends a session its last terminal left
// spares it (attachArgs).
// lingerHookOption holds its client-detached hook, for LingerHookOn.
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
	detached := fmt.Sprintf("run-shell -b \"sh %s #{socket_path} %d %s %s\"",
		format(script), max(1, int(d.Seconds())), format(b.lingerFile()), format(b.Name))
	_, err := tmux.Run("set-option", "-t", b.target(), lingerOption, "on",
		";", "set-option", "-t", b.target(), lingerHookOption, detached,
		";", "set-option", "-t", b.target(), "destroy-unattached", "off",
		";", "set-hook", "-t", b.target(), "client-detached", detached,
		";", "set-hook", "-t", b.target(), "client-attached", "run-shell -b \"rm -f "+format(b.lingerFile())+"\"")
	return err
}

// LingerHookOn is the tmux commands that set the client-detached hook of a lingering bridge on
// another session of the bridge's, in case tmux runs the hook there (see above), to chain after
// the command that makes that session (no detach comes between them); none for a bridge that
// does not linger.
func (b Bridge) LingerHookOn(session string) []string {
	out, err := tmux.Run("show-options", "-v", "-t", b.target(), lingerHookOption)
	if hook := strings.TrimSuffix(out, "\n"); err == nil && hook != "" { // an error: no such option, no lingering
		return []string{";", "set-hook", "-t", tmux.SessionTarget(session), "client-detached", hook}
	}
	return nil
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
