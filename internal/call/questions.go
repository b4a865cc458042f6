package call

import (
	"cmp"
	"strings"

	"github.com/ptybridge/ptybridge/internal/cleantext"
)

// questions notices that a local command waits for the human (the foreground program sleeps until
// the terminal has input), and takes the question and the echo of the answer out of the clean text
// of stdout: they are the terminal's conversation with the human, not output.
type questions struct {
	c        *Call
	errs     *stderrCopy
	taken    bool
	shown    string // the question at the terminal's cursor line
	captures int
	waits    func() bool           // the look; tests replace it
	asks     func() (string, bool) // and the reading of the question; true: a full-screen program's
}

// maxCaptures bounds one question's tmux reads: the screen can lag, a read may have no prompt.
const maxCaptures = 3

// question is what the command asks while it sleeps until the human answers the terminal. The
// stream can lag far behind the shell (a large output in tmux), which may be at its prompt long
// before END; the shell waits for ptysend to see the wrapper's token in the stderr fifo, so a look
// counts only if the token had not come by its end (and the capture's).
func (q *questions) question() string {
	select {
	case <-q.c.started:
	default:
		return "" // the shell has yet to read the line: it is no question
	}
	if q.errs.over.Load() {
		return ""
	}
	waits := q.waits()
	if waits && q.shown == "" && q.captures < maxCaptures {
		q.captures++
		var fullScreen bool
		if q.shown, fullScreen = q.asks(); fullScreen {
			// The stream has yet to bring the switch to the alternate screen: a full-screen
			// program waits for the human's keys, and its rows ask nothing (waitingOn).
			q.shown = ""
			q.c.fullScreen.Store(true)
			return ""
		}
	}
	if !waits || q.errs.over.Load() {
		return ""
	}
	note := q.note()
	q.take()
	return note
}

// note names the question: the cursor line, else the output's last (stdout's pending, or stderr's).
func (q *questions) note() string {
	pending := ""
	if q.c.clean != nil {
		pending = strings.TrimSpace(q.c.clean.Pending())
	}
	return cmp.Or(q.shown, pending, strings.TrimSpace(cleantext.String(q.errs.lastLine())), "(input)")
}

func (q *questions) answered() { q.shown, q.captures, q.taken = "", 0, false }

// take takes the question, and the echo of the answer that follows, out of the clean text of
// stdout, only when the line the output shows last (stdout's pending line, else stderr's) ends with
// the question at the terminal's cursor line (a question wider than the terminal shows only its
// last row there): a wrong note never takes output. The stream may bring the question after the
// note; a later look takes it then.
func (q *questions) take() {
	if q.c.clean == nil || q.taken {
		return
	}
	stderrLine := strings.TrimSpace(cleantext.String(q.errs.lastLine()))
	asks := strings.TrimSpace(q.shown)
	_, q.taken = q.c.clean.TakePendingIf(func(pending string) bool {
		return asks != "" && strings.HasSuffix(cmp.Or(strings.TrimSpace(pending), stderrLine), asks)
	})
}
