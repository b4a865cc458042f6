package relay

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
)

var (
	ErrNoRelay = errors.New("no relay is listening")
	ErrVersion = errors.New("the relay speaks another protocol version")
	ErrHungUp  = errors.New("the relay hung up") // it died, or the pane went
)

// Turn is a call's connection to the shared pane's relay: once the turn
// came, the pane's stream (Read) and the right to type into it.
type Turn struct {
	View
	Path   string // the relay's socket
	c      *os.File
	r      *bufio.Reader
	data   []byte // stream that Read has not returned yet
	read   int64  // how much stream Read returned
	unread int    // the bytes of the data message being read still in r
	// Tracker follows the shell's events from the hello on: whoever reads
	// the stream before the command's START (a look at the pane) feeds it.
	Tracker *markers.Tracker
}

// Queued is what a waiting call hears about the pane's holder.
type Queued struct {
	Ahead int // the holder and the calls queued before ours
	Since time.Time
	Call  string // what the holder runs, as the agent typed it; "" while unknown
}

// RequestTurn asks the relay at path for a turn for call (as the agent
// typed it) and waits until deadline (zero: none) or ctx ends; meanwhile
// queued hears what holds the pane, at once and whenever that changes.
func RequestTurn(ctx context.Context, path, call string, deadline time.Time, queued func(Queued)) (*Turn, error) {
	c, err := platform.DialUnix(path)
	if err != nil {
		return nil, fmt.Errorf("%w on %s: %v", ErrNoRelay, path, err)
	}
	t := &Turn{Path: path, c: c, r: bufio.NewReaderSize(c, 64<<10)}
	if err := t.waitForTurn(ctx, call, deadline, queued); err != nil {
		c.Close()
		return nil, err
	}
	return t, nil
}

func (t *Turn) waitForTurn(ctx context.Context, call string, deadline time.Time, queued func(Queued)) error {
	stop := context.AfterFunc(ctx, func() { t.c.SetReadDeadline(time.Now()) })
	defer stop()
	if err := send(t.c, "turn", call); err != nil {
		return hungUp(err)
	}
	t.c.SetReadDeadline(deadline)
	defer t.c.SetReadDeadline(time.Time{})
	m, err := readMessage(t.r)
	for ; err == nil && m.verb() == "queued"; m, err = readMessage(t.r) {
		if q := (Queued{Ahead: m.int(1), Since: m.time(2), Call: m.text(3)}); m.err == nil && queued != nil {
			queued(q)
		}
	}
	if err != nil {
		return hungUp(err)
	}
	if m.verb() == "hello" && m.int(1) == Version && m.fieldCount(1+viewFields) {
		t.View = parseView(&m, 2)
		t.Tracker = markers.TrackerFrom(t.Shell)
	}
	if m.err != nil || t.PaneID == "" {
		return fmt.Errorf("%w: %q", ErrVersion, m.words)
	}
	return nil
}

// hungUp says what an error talking to a relay means.
func hungUp(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return ErrHungUp
	}
	return err
}

// Read reads the pane's stream, from where the turn began.
func (t *Turn) Read(p []byte) (int, error) {
	if len(t.data) > 0 {
		n := copy(p, t.data)
		t.data = t.data[n:]
		t.read += int64(n)
		return n, nil
	}
	for t.unread == 0 {
		m, err := readHeader(t.r)
		if err != nil {
			return 0, hungUp(err)
		}
		if m.verb() != "data" {
			return 0, fmt.Errorf("unexpected message from the relay: %q", m.words)
		}
		t.unread = m.size
	}
	n, err := t.r.Read(p[:min(len(p), t.unread)])
	t.unread -= n
	t.read += int64(n)
	return n, hungUp(err)
}

// readUnread moves the rest of the data message being read into data.
func (t *Turn) readUnread() error {
	if t.unread == 0 {
		return nil
	}
	b := make([]byte, t.unread)
	_, err := io.ReadFull(t.r, b)
	t.data, t.unread = append(t.data, b...), 0
	return hungUp(err)
}

// Stashed returns, as read, the stream that came while the turn waited
// for an answer (TypeIf's "moved"): a look reads it before it decides again.
func (t *Turn) Stashed() []byte {
	t.readUnread()
	b := t.data
	t.data = nil
	t.read += int64(len(b))
	return b
}

// StreamOffset is where the stream read so far ends, as the relay counts.
func (t *Turn) StreamOffset() int64 { return t.View.Offset + t.read }

// Buffered is how much stream came that Read has not returned yet.
func (t *Turn) Buffered() int { return len(t.data) + t.r.Buffered() }

// SetReadDeadline bounds the next reads of the stream; zero: none.
func (t *Turn) SetReadDeadline(d time.Time) error { return t.c.SetReadDeadline(d) }

// Type types keys into the pane, unconditionally.
func (t *Turn) Type(keys string) error {
	for len(keys) > 0 {
		n := min(len(keys), maxKeys)
		if err := send(t.c, "type", keys[:n]); err != nil {
			return hungUp(err)
		}
		keys = keys[n:]
	}
	return nil
}

// maxKeys bounds the keys of one request (hex doubles them).
const maxKeys = maxLine/2 - 64

// TypeIf types keys only if the stream brought nothing beyond what Read
// returned (on which the caller decided) and the human typed nothing the
// shell has not read; else what came waits for Read (Stashed). Keys too
// long for one request go in several: the first decides.
func (t *Turn) TypeIf(keys string) (typed bool, err error) {
	if err := t.readUnread(); err != nil {
		return false, err
	}
	n := min(len(keys), maxKeys)
	if err := send(t.c, "type-if", t.StreamOffset(), keys[:n]); err != nil {
		return false, hungUp(err)
	}
	for {
		m, err := readMessage(t.r)
		switch {
		case err != nil:
			return false, hungUp(err)
		case m.verb() == "data":
			t.data = append(t.data, m.data...)
		case m.verb() == "typed":
			return true, t.Type(keys[n:])
		case m.verb() == "moved":
			return false, nil
		default:
			return false, fmt.Errorf("unexpected message from the relay: %q", m.words)
		}
	}
}

// Runs tells the history what the wrapper with that id runs (its first 8 KiB).
func (t *Turn) Runs(id, command string) error {
	return send(t.c, "runs", id, command[:min(len(command), 8<<10)])
}

func (t *Turn) Close() error { return t.c.Close() }
