package session

import (
	"io"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/limits"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// StartFarREPL types the far call that runs a REPL's command (id, the
// REPL state's) in the far shell behind t, as a command's: the probe when
// the shell has no hooks yet, the loader, the payload. The REPL's stdin
// and stderr stay on the terminal (its prompts go to stderr). It returns
// the stream read past READY, which the REPL's reader takes first. The
// REPL's own question (ptybridge --confirm) was asked already.
func StartFarREPL(b bridge.Bridge, rc *relay.Client, t pane.Target, id markers.ID, command string, stderr io.Writer) ([]byte, error) {
	req := Request{Bridge: b, Command: command, Stderr: stderr}
	req.approved = true
	f, err := openFar(req, rc, t, time.Now())
	if err != nil {
		return nil, err
	}
	f.id = id
	loader := markers.FarLoader(f.rec.Kind, id, f.hooked)
	rows := 1
	if !f.hooked {
		rows = (f.rec.PromptCol+len(loader))/max(f.rec.Width, 1) + 1
	}
	job := markers.FarJob{ID: id, Command: command, Kind: f.rec.Kind, First: !f.hooked, Terminal: true, EraseRows: rows}
	signals, stop := limits.NotifyStop()
	defer stop()
	f.signals = signals
	if err := rc.Type(loader + "\r"); err != nil {
		return nil, failure.From(err)
	}
	f.loaderTyped = true
	rest, err := f.awaitMarker(markers.Ready(id), readyWait, "the loader line")
	if err != nil {
		return nil, err
	}
	if err := rc.Type(markers.TypedPayload(f.rec.Kind, f.hooked, markers.FarScript(job))); err != nil {
		return nil, failure.From(err)
	}
	return rest, nil
}
