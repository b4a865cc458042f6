package human

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// NoticeTime is how long a notice stays on the human's message line. A
// key clears it sooner: tmux's -N, which would keep it, swallows keys.
const NoticeTime = 10 * time.Second

// Speaker starts every notice: the human knows who speaks.
const Speaker = "[agent] "

// client is one terminal attached to the bridge session.
type client struct {
	name, tty     string
	width, height int
	activity      int64 // the time of its last key, in seconds
}

// clients are the human's terminals attached to the bridge session.
func clients(b bridge.Bridge) ([]client, error) {
	out, err := tmux.Run("list-clients", "-t", tmux.SessionTarget(b.Name), "-F",
		"#{client_name}\t#{client_tty}\t#{client_control_mode}\t#{client_width}\t#{client_height}\t#{client_activity}")
	if err != nil {
		return nil, noBridgeOr(err)
	}
	return parseClients(out), nil
}

// parseClients reads list-clients' answer. Control-mode clients (a
// terminal's tmux integration, scripts) draw no status line nor popup.
func parseClients(out string) []client {
	var cs []client
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 6 || f[2] == "1" {
			continue
		}
		c := client{name: f[0], tty: f[1]}
		c.width, _ = strconv.Atoi(f[3])
		c.height, _ = strconv.Atoi(f[4])
		c.activity, _ = strconv.ParseInt(f[5], 10, 64)
		cs = append(cs, c)
	}
	return cs
}

// mostRecent is the terminal the human used last.
func mostRecent(cs []client) client {
	return slices.MaxFunc(cs, func(a, b client) int { return cmp.Compare(a.activity, b.activity) })
}

var errNoTerminal = &failure.Error{
	Msg:  "no terminal of the user's is attached to the bridge session, so there is nobody to show it to",
	Hint: "ask the user to open the shared terminal: run ptybridge in a terminal window",
}

// Notify shows message on the message line of every terminal attached to
// the bridge, for NoticeTime, and rings their bell. It returns how many
// terminals show it.
func Notify(b bridge.Bridge, message string) (int, error) {
	cs, err := clients(b)
	if err != nil {
		return 0, err
	}
	if len(cs) == 0 {
		return 0, errNoTerminal
	}
	text := noticeText(message)
	var args []string
	for _, c := range cs {
		if len(args) > 0 {
			args = append(args, ";")
		}
		args = append(args, "display-message", "-d", strconv.Itoa(int(NoticeTime/time.Millisecond)), "-c", c.name, text)
	}
	if _, err := tmux.Run(args...); err != nil {
		return 0, noBridgeOr(err)
	}
	for _, c := range cs {
		ringBell(c.tty)
	}
	return len(cs), nil
}

// noticeText is message as one line for tmux's message line: after
// Speaker, control characters made spaces, and escaped for tmux, which
// expands formats ("#{...}") and takes a final ";" for a separator.
func noticeText(message string) string {
	blank := func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }
	text := Speaker + strings.Join(strings.FieldsFunc(message, blank), " ")
	text = strings.ReplaceAll(text, "#", "##")
	if strings.HasSuffix(text, ";") {
		text = strings.TrimSuffix(text, ";") + `\;`
	}
	return text
}

// ringBell writes a BEL to the human's terminal itself: it draws nothing
// and is no input to the pane.
func ringBell(tty string) {
	if !strings.HasPrefix(tty, "/dev/") {
		return
	}
	f, err := platform.OpenTTYToWriteNoWait(tty)
	if err != nil {
		return
	}
	f.WriteString("\a")
	f.Close()
}
