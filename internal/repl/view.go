package repl

import (
	"strings"

	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// An evaluation used to run two tmux processes (~4 ms each, as much as a
// whole `ptysend -- true`): one to look at the prompt line, one to paste
// the input. Both are known from the stream that ptysend reads anyway:
//
//   - Typing: the relay types for the client whose turn it is, as for
//     commands. What tmux's paste-buffer -p adds is the bracketing when
//     the REPL has asked for bracketed paste; the relay tracks that mode
//     in the stream and tells it in its greeting (relay.StreamView.Paste), and
//     the lineScreen follows it from there.
//   - The readiness check: the lineScreen already emulates the cursor
//     line from the stream to see the prompt at the end of an evaluation.
//     A call that ends at the prompt saves that line (replView) with the
//     stream offset it holds for; the next call restores it when its own
//     stream starts at that same offset of the same relay, i.e. when not
//     one byte was printed in between: no key of the human was echoed,
//     the REPL printed nothing on its own. The human's half-typed line,
//     a busy REPL and copy mode (the tmux hook's file) are refused as
//     before; /proc still tells whether the REPL waits for input. Any
//     other start falls back to tmux's capture of the line, after which
//     the next newline makes the line the stream's own again.

// replView is a call's cursor line, saved for the next one.
type replView struct {
	Relay  string `json:"relay"`
	Offset int64  `json:"offset"` // in the relay's stream: the line holds after this many bytes
	Cells  string `json:"cells"`  // the line, trailing blanks included
	Col    int    `json:"col"`
}

// startsAt reports whether the view holds where stream starts.
func (v *replView) startsAt(stream relay.StreamView) bool {
	return v != nil && v.Relay == stream.Relay && v.Offset == stream.Offset
}

// view is the cursor line as of the stream read so far, nil when it
// cannot be known from it (a tmux capture with no newline since, a
// sequence half read or held back).
func (r *replRun) view() *replView {
	r.streamMu.Lock()
	defer r.streamMu.Unlock()
	cells, col, ok := r.screen.view()
	if !ok || r.ext.Holding() || r.rc.Stream.Relay == "" {
		return nil
	}
	return &replView{Relay: r.rc.Stream.Relay, Offset: r.rc.Stream.Offset + r.fed, Cells: cells, Col: col}
}

// saveView records the view for the next call. Bytes still on their way
// (the REPL printed after its prompt) make the next call's offset differ:
// it asks tmux then.
func (r *replRun) saveView() {
	r.st.View = r.view()
	saveREPL(r.req.Bridge, r.st)
}

// Bracketed paste wraps a paste in these (xterm's, as tmux sends them).
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// typeInput types the lines and presses Enter, byte for byte as tmux's
// paste-buffer -p followed by send-keys Enter would, through the relay:
// newlines become "\r" (Enter), and when the REPL has turned bracketed
// paste on the text is bracketed, so that its line editor takes it as
// text (a TAB is no completion, the lines are one edit). Without
// bracketed paste the REPL gets the keys as a plain paste: python 3.11
// (which turns readline's bracketed paste off) and node never turn it on,
// and their completers take a TAB at the start of a line as indentation.
// When the mode is unknown (no switch seen since the relay started, as
// under dash, whose prompt never sends one; a sequence half read), tmux
// pastes as before.
func (r *replRun) typeInput(lines []string) error {
	text := strings.Join(lines, "\r")
	switch r.pasteMode() {
	case markers.PasteOn:
		return r.rc.Type(pasteStart + text + pasteEnd + "\r")
	case markers.PasteOff:
		return r.rc.Type(text + "\r")
	}
	return r.pasteWithTmux(lines)
}

// pasteMode is the REPL's bracketed paste mode as of the stream read so
// far; unknown while a possible escape sequence is held back.
func (r *replRun) pasteMode() markers.PasteMode {
	r.streamMu.Lock()
	defer r.streamMu.Unlock()
	if r.ext.Holding() {
		return markers.PasteUnknown
	}
	return r.screen.pasteMode()
}

// replKeys are the keys sent to a REPL, as tmux's send-keys sends them.
var replKeys = map[string]string{"Enter": "\r", "C-c": "\x03", "C-d": "\x04", `C-\`: "\x1c"}

// sendKey presses a key in the REPL through the relay (tmux if the relay
// cannot: the key must not be lost). Keys typed into the pane's input
// never become copy-mode commands, as send-keys' would.
func (r *replRun) sendKey(key string) {
	if k, ok := replKeys[key]; ok && r.rc.Type(k) == nil {
		return
	}
	tmux.Run("send-keys", "-t", r.rc.PaneID, key)
}
