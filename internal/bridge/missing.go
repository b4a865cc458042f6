package bridge

import (
	"fmt"
	"strings"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// missingError explains a bridge session that does not exist. With no
// bridge at all, that is the message for the agent (NoBridgeMessage);
// when other bridges run (the agent asked for another name, by
// --session or PTYBRIDGE_SESSION), it names the one looked for and the
// ones there are. Bridge sessions are those that Open marked with
// @ptybridge_pane; one tmux call lists them, on this error path only.
func (b Bridge) missingError() error {
	running := runningBridges()
	if len(running) == 0 {
		return &failure.Error{Verbatim: NoBridgeMessage}
	}
	quoted := make([]string, len(running))
	for i, name := range running {
		quoted[i] = fmt.Sprintf("%q", name)
	}
	what := "the bridge session that runs is " + quoted[0]
	if len(running) > 1 {
		what = "the bridge sessions that run are " + strings.Join(quoted, ", ")
	}
	return &failure.Error{
		Msg: fmt.Sprintf("no bridge session named %q is running; %s", b.Name, what),
		Hint: fmt.Sprintf("to send there, use --session %s; to have a bridge under the name %q, ask the user to open it with: ptybridge --session %s",
			shellWord(running[0]), b.Name, shellWord(b.Name)),
	}
}

// runningBridges lists the bridge sessions on the user's default tmux
// server.
func runningBridges() []string {
	out, err := tmux.Run("list-sessions", "-F", "#{@ptybridge_pane}\t#{session_name}")
	if err != nil {
		return nil
	}
	var names []string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		pane, name, ok := strings.Cut(line, "\t")
		if ok && pane != "" {
			names = append(names, name)
		}
	}
	return names
}

// shellWord is s as one shell word, quoted only when it needs to be.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=@%,/") == "" {
		return s
	}
	return markers.QuotePOSIX(s)
}
