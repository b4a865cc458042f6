package bridge

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/relay"
)

// waitNotices says on stderr that a call waits behind another, and what
// holds the shared terminal since when, as the relay tells it: once, and
// again when the holder changes while we still wait.
type waitNotices struct {
	last relay.Queued
	told bool
}

func (w *waitNotices) tell(stderr io.Writer, q relay.Queued) {
	if w.told && q.Since.Equal(w.last.Since) && q.Call == w.last.Call {
		return
	}
	w.last, w.told = q, true
	after := "it is done"
	if q.Ahead > 1 {
		after = fmt.Sprintf("it and the %d calls queued before this one are done", q.Ahead-1)
	}
	fmt.Fprintf(stderr, "ptysend: waiting: %s holds the shared terminal since %s (%s ago); this call runs when %s\n",
		w.holder(), q.Since.Format("15:04:05"), time.Since(q.Since).Round(time.Second), after)
}

// holder names the call that holds the terminal, as far as we were told.
func (w *waitNotices) holder() string {
	if w.last.Call == "" {
		return "another ptysend call"
	}
	return fmt.Sprintf("another ptysend call, %q,", w.last.Call)
}

// shortCall is a call as the agent typed it, shortened for the notices
// of the calls queued behind it: its first line, at most 80 characters,
// control characters shown as '?'.
func shortCall(call string) string {
	const max = 80
	line, _, multi := strings.Cut(strings.TrimSpace(call), "\n")
	runes := []rune(strings.TrimSpace(line))
	for i, r := range runes {
		if r < ' ' || r == 0x7f {
			runes[i] = '?'
		}
	}
	if len(runes) > max {
		runes, multi = runes[:max], true
	}
	if multi {
		return string(runes) + " …"
	}
	return string(runes)
}
