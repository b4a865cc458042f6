package bridge

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/ptybridge/ptybridge/internal/tmux"
)

// ptybridge --confirm has the human approve each command of the agent's.
// The setting is the session's option confirmOption, set by ptybridge and
// never by ptysend, so the agent cannot turn it off; it lasts as long as
// the session. A file beside the relay socket mirrors it, so that a call
// learns it with a stat instead of a tmux process (~4 ms of a ~5 ms
// call); whoever starts a relay copies it beside the new socket.
const confirmOption = "@ptybridge_confirm"

func confirmFile(socket string) string { return strings.TrimSuffix(socket, ".sock") + ".confirm" }

// RequireConfirm turns --confirm on for as long as the session lives.
func (b Bridge) RequireConfirm() error {
	out, err := tmux.Run("set-option", "-t", b.target(), confirmOption, "on",
		";", "display-message", "-p", "-t", b.target(), "#{@ptybridge_relay}")
	if err != nil {
		return err
	}
	return mirrorConfirm(cmp.Or(strings.TrimSpace(out), b.SocketPath()))
}

func mirrorConfirm(socket string) error {
	return os.WriteFile(confirmFile(socket), []byte("on\n"), 0o600)
}

// ConfirmRequired reports whether the human approves each command of the
// session whose relay listens on socket: yes unless the mirror is absent,
// since asking too often is better than typing unapproved.
func ConfirmRequired(socket string) bool {
	_, err := os.Stat(confirmFile(socket))
	return !errors.Is(err, fs.ErrNotExist)
}
