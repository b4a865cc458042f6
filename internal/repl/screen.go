package repl

import (
	"bytes"
	"sync/atomic"

	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/pane"
)

// lineScreen reads a REPL's raw terminal output as the human sees it,
// through cleantext's terminal emulator: REPLs redraw their input line
// with escape sequences (node on every change) and return the cursor with
// "\r". Finished lines go to onLine; the prompt is sought on the cursor line.
type lineScreen struct {
	text   *cleantext.Writer
	clean  bytes.Buffer // text's finished lines
	onLine func(string)
	paste  cleantext.Mode // the relay's bracketed paste mode as of our first byte
	// own: the current line is what the stream made it from a known
	// start (a saved view, START, a newline since tmux's capture), so it
	// may be saved as the next call's view.
	own atomic.Bool
}

func newLineScreen(onLine func(string), paste cleantext.Mode) *lineScreen {
	s := &lineScreen{onLine: onLine, paste: paste}
	s.text = cleantext.NewWriter(&s.clean)
	return s
}

// Write passes the lines p finishes to onLine; a finished line makes the
// next one the stream's own.
func (s *lineScreen) Write(p []byte) (int, error) {
	n, err := s.text.Write(p)
	for {
		i := bytes.IndexByte(s.clean.Bytes(), '\n')
		if i < 0 {
			return n, err
		}
		s.own.Store(true)
		s.onLine(string(s.clean.Next(i + 1)[:i]))
	}
}

// setLine starts the current line over with text, the cursor at col:
// what tmux showed before our stream began, or (own) a view an earlier
// call saved at the very point of the stream where ours starts.
func (s *lineScreen) setLine(text string, col int, own bool) {
	s.text.SetLine(text, max(0, col))
	s.own.Store(own)
}

// view is the current line and cursor column to save for the next call,
// when the line is the stream's own and no sequence is half read.
func (s *lineScreen) view() (cells string, col int, ok bool) {
	if !s.own.Load() || !s.text.Settled() {
		return "", 0, false
	}
	cells, col = s.text.Line()
	return cells, col, true
}

// saveView records the cursor line as of the stream read so far, if that
// tells it, for the next call. Bytes still on their way make the next
// call's offset differ: it asks tmux then.
func (r *run) saveView() error {
	r.streamMu.Lock()
	r.rec.View = nil
	if cells, col, ok := r.screen.view(); ok && !r.ext.Holding() && r.c.T.Relay != "" {
		r.rec.View = &pane.LineView{Relay: r.c.T.Relay, Offset: r.base + r.fed, Cells: cells, Col: col}
	}
	r.streamMu.Unlock()
	return pane.SaveREPL(r.c.B, r.rec)
}

// pasteMode is the REPL's bracketed paste mode as of the stream read so far.
func (r *run) pasteMode() cleantext.Mode {
	r.streamMu.Lock()
	defer r.streamMu.Unlock()
	if r.ext.Holding() {
		return cleantext.Unknown
	}
	return r.screen.text.Paste(r.screen.paste)
}
