package bridge

import (
	"errors"
	"io"
	"time"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/rundir"
)

// Query asks the bridge's relay one question (relay.Query) without
// taking a turn at the pane: it answers while a call holds the pane, and
// no tmux process runs on its way. Only when no relay answers queries
// (none runs, it died, or it is of an older version) is it repaired or
// replaced as for a call (Turn), which may wait for a call of an older
// ptysend to finish, within maxTime.
func (b Bridge) Query(request string, maxTime time.Duration, stderr io.Writer) (*relay.Answer, []byte, error) {
	if err := rundir.Ensure(b.RuntimeDir); err != nil {
		return nil, nil, failure.From(err)
	}
	a, body, err := relay.Query(b.SocketPath(), request)
	if !errors.Is(err, relay.ErrNoQueries) && !errors.Is(err, relay.ErrVersion) {
		return a, body, queryFailure(err)
	}
	rc, err := b.Turn(maxTime, stderr, time.Now())
	if err != nil {
		return nil, nil, err
	}
	rc.Close()
	// The relay found may listen elsewhere: the one of a bridge opened
	// with another runtime directory.
	a, body, err = relay.Query(rc.Path, request)
	if errors.Is(err, relay.ErrNoQueries) || errors.Is(err, relay.ErrVersion) {
		// A relay of our version without its query socket.
		path, err := b.replaceRelay()
		if err != nil {
			return nil, nil, failure.From(err)
		}
		a, body, err = relay.Query(path, request)
		return a, body, queryFailure(err)
	}
	return a, body, queryFailure(err)
}

func queryFailure(err error) error {
	if err == nil {
		return nil
	}
	return &failure.Error{
		Msg:  "asking the bridge's relay failed: " + err.Error(),
		Hint: "retry; if it happens again, ask the user to restart ptybridge",
	}
}
