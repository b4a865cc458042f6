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

// ErrNoRelay means nothing listens on the relay's socket.
var ErrNoRelay = errors.New("no relay is listening")

// ErrVersion means the relay speaks another version of the protocol.
var ErrVersion = errors.New("the relay speaks another protocol version")

// ErrHungUp means the relay closed the connection: it died, or the pane
// went.
var ErrHungUp = errors.New("the relay hung up")

// Turn is a call's connection to the shared pane's relay: once the turn
// came, the pane's stream (Read) and the right to type into it.
type Turn struct {
	View
	// Path is the socket the relay listens on.
	Path string
	c    *os.File
	r    *bufio.Reader
	// data is stream not returned by Read yet; read is how many bytes of
	// the stream Read returned.
	data []byte
	read int64
	// unread is how many bytes of the data message being read are still
	// in r.
	unread int
	// Tracker follows the shell's events in the stream read, from the
	// hello's snapshot on: whoever reads the stream before the command's
	// START (a look at the pane) feeds it.
	Tracker *markers.Tracker
}

// Queued is what a waiting call hears about the pane's holder.
type Queued struct {
	// Ahead counts the calls before ours: the holder and those queued
	// before us.
	Ahead int
	Since time.Time
	// Call is what the holder runs, as the agent typed it; "" while unknown.
	Call string
}

// RequestTurn asks the relay at path for a turn at the pane for call (as
// the agent typed it), and waits for it until deadline (zero: none) or
// until ctx ends. While it waits behind another call, queued hears what
// holds the pane, at once and whenever that changes.
func RequestTurn(ctx context.Context, path, call string, deadline time.Time, queued func(Queued)) (*Turn, error) {
	c, err := platform.DialUnix(path)
	if err != nil {
		return nil, fmt.Errorf("%w on %s: %v", ErrNoRelay, path, err)
	}
	stop := context.AfterFunc(ctx, func() { c.SetReadDeadline(time.Now()) })
	defer stop()
	t := &Turn{Path: path, c: c, r: bufio.NewReaderSize(c, 64<<10)}
	if _, err := c.Write(appendMessage(nil, "turn", call)); err != nil {
		c.Close()
		return nil, hungUp(err)
	}
	c.SetReadDeadline(deadline)
	defer c.SetReadDeadline(time.Time{})
	for {
		m, err := readMessage(t.r)
		if err != nil {
			c.Close()
			return nil, hungUp(err)
		}
		switch m.verb() {
		case "queued":
			if q := (Queued{Ahead: m.int(1), Since: m.time(2), Call: m.text(3)}); m.err == nil && queued != nil {
				queued(q)
			}
			continue
		case "hello":
			if m.int(1) == Version && m.fieldCount(1+viewFields) {
				t.View = parseView(&m, 2)
				t.Tracker = markers.TrackerFrom(t.Shell)
			}
		}
		if m.verb() != "hello" || m.err != nil || t.PaneID == "" {
			c.Close()
			return nil, fmt.Errorf("%w: %q", ErrVersion, m.words)
		}
		return t, nil
	}
}

// hungUp says what an error reading from a relay means.
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

// readUnread moves the rest of the data message being read into data,
// before other messages are read.
func (t *Turn) readUnread() error {
	if t.unread == 0 {
		return nil
	}
	b := make([]byte, t.unread)
	_, err := io.ReadFull(t.r, b)
	t.data, t.unread = append(t.data, b...), 0
	return hungUp(err)
}

// Stashed returns the stream that came while the turn waited for an
// answer (TypeIf's "moved"), as read: a look reads it before it decides
// again.
func (t *Turn) Stashed() []byte {
	t.readUnread()
	b := t.data
	t.data = nil
	t.read += int64(len(b))
	return b
}

// StreamOffset is where the stream read so far ends, as the relay
// counts it.
func (t *Turn) StreamOffset() int64 { return t.View.Offset + t.read }

// Buffered reports whether stream that Read has not returned yet has
// come: zero means we are as far as the relay has sent.
func (t *Turn) Buffered() int { return len(t.data) + t.r.Buffered() }

// SetReadDeadline bounds the next reads of the stream; zero: none.
func (t *Turn) SetReadDeadline(d time.Time) error { return t.c.SetReadDeadline(d) }

// Type types keys into the pane, unconditionally.
func (t *Turn) Type(keys string) error {
	for len(keys) > 0 {
		n := min(len(keys), maxKeys)
		if _, err := t.c.Write(appendMessage(nil, "type", keys[:n])); err != nil {
			return hungUp(err)
		}
		keys = keys[n:]
	}
	return nil
}

// maxKeys bounds the keys of one request (hex doubles them).
const maxKeys = maxLine/2 - 64

// TypeIf types keys only if nothing came in the stream beyond what Read
// returned so far (the caller decided on that), and the human has typed
// nothing the shell has not read: typed is false when something did,
// and nothing was typed; what came is there for Read (Stashed). Keys too
// long for one request go in several: the first decides, the others
// follow it.
func (t *Turn) TypeIf(keys string) (typed bool, err error) {
	first, rest := keys[:min(len(keys), maxKeys)], keys[min(len(keys), maxKeys):]
	if typed, err = t.typeIf(first); err != nil || !typed {
		return typed, err
	}
	return true, t.Type(rest)
}

func (t *Turn) typeIf(keys string) (typed bool, err error) {
	if err := t.readUnread(); err != nil {
		return false, err
	}
	if _, err := t.c.Write(appendMessage(nil, "type-if", t.StreamOffset(), keys)); err != nil {
		return false, hungUp(err)
	}
	for {
		m, err := readMessage(t.r)
		if err != nil {
			return false, hungUp(err)
		}
		switch m.verb() {
		case "data":
			t.data = append(t.data, m.data...)
		case "typed":
			return true, nil
		case "moved":
			return false, nil
		default:
			return false, fmt.Errorf("unexpected message from the relay: %q", m.words)
		}
	}
}

// Runs tells the relay, for its history, what the wrapper with that id
// runs.
func (t *Turn) Runs(id, command string) error {
	_, err := t.c.Write(appendMessage(nil, "runs", id, command[:min(len(command), maxRuns)]))
	return err
}

// maxRuns bounds a declared command, in bytes.
const maxRuns = 8 << 10

func (t *Turn) Close() error { return t.c.Close() }

// queryTimeout bounds how long a query waits for its answer.
const queryTimeout = 5 * time.Second

// query sends one request and reads the answer up to its "end".
func query(path string, verb string, fields ...any) ([]message, error) {
	c, err := platform.DialUnixBlocking(path, queryTimeout)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoRelay, err)
	}
	defer c.Close()
	if _, err := c.Write(appendMessage(nil, verb, fields...)); err != nil {
		return nil, hungUp(err)
	}
	r := bufio.NewReaderSize(c, 64<<10)
	var answer []message
	for {
		m, err := readMessage(r)
		if err != nil && len(answer) == 0 && errors.Is(hungUp(err), ErrHungUp) {
			// A relay of an older version greets and hangs up.
			return nil, fmt.Errorf("%w: it hung up on %q", ErrVersion, verb)
		}
		if err != nil {
			return nil, hungUp(err)
		}
		if len(answer) == 0 && !answers[m.verb()] {
			return nil, fmt.Errorf("%w: %q", ErrVersion, m.words)
		}
		if err := m.asError(); err != nil {
			return nil, err
		}
		if m.verb() == "end" {
			return answer, nil
		}
		answer = append(answer, m)
	}
}

// answers are the messages a query's answer may start with.
var answers = map[string]bool{"status": true, "entry": true, "end": true, "error": true}

// QueryStatus asks the shared pane's relay where the pane stands.
func QueryStatus(path string) (*Status, error) {
	ms, err := query(path, "status")
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 || ms[0].verb() != "status" || ms[0].int(1) != Version {
		return nil, ErrVersion
	}
	s := parseStatus(&ms[0])
	for i := range ms[1:] {
		if m := &ms[1+i]; m.verb() == "running" {
			e := parseEntry(m)
			s.Running = &e
		}
	}
	return s, errors.Join(ms[0].err)
}

// QueryHistory asks for the last n commands of the history.
func QueryHistory(path string, n int) ([]Entry, error) {
	ms, err := query(path, "history", n)
	if err != nil {
		return nil, err
	}
	es := make([]Entry, 0, len(ms))
	for i := range ms {
		es = append(es, parseEntry(&ms[i]))
		if ms[i].err != nil {
			return nil, ms[i].err
		}
	}
	return es, nil
}

// QueryOutput asks for what command id printed (0: the human's last).
func QueryOutput(path string, id int) (Entry, []byte, error) {
	ms, err := query(path, "output", id)
	if err != nil {
		return Entry{}, nil, err
	}
	if len(ms) != 2 || ms[0].verb() != "entry" || ms[1].verb() != "data" {
		return Entry{}, nil, fmt.Errorf("unexpected answer from the relay")
	}
	return parseEntry(&ms[0]), ms[1].data, ms[0].err
}

// IsAnswer reports whether err is the relay's own answer (an error it
// sent), not a failure to reach it.
func IsAnswer(err error) bool {
	var e errorMessage
	return errors.As(err, &e)
}

// JobClient is one connection to a job window's relay.
type JobClient struct {
	c *os.File
	r *bufio.Reader
}

// DialJob connects to the job window's relay at path. A socket nobody
// listens on is a relay's that died: it is removed.
func DialJob(path string) (*JobClient, error) {
	c, err := platform.DialUnix(path)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			os.Remove(path)
		}
		return nil, ErrNoRelay
	}
	return &JobClient{c: c, r: bufio.NewReaderSize(c, 64<<10)}, nil
}

func (j *JobClient) Close() error { return j.c.Close() }

// ask sends a request and reads the first message of the answer, which
// must be the message want ("": any).
func (j *JobClient) ask(want, verb string, fields ...any) (message, error) {
	if _, err := j.c.Write(appendMessage(nil, verb, fields...)); err != nil {
		return message{}, hungUp(err)
	}
	m, err := j.next()
	if err == nil && want != "" && m.verb() != want {
		err = fmt.Errorf("unexpected answer from the job's relay: %q", m.words)
	}
	return m, err
}

func (j *JobClient) next() (message, error) {
	m, err := readMessage(j.r)
	if err != nil {
		return message{}, hungUp(err)
	}
	if err := m.asError(); err != nil {
		return message{}, err
	}
	return m, nil
}

func (j *JobClient) Info() (Info, error) {
	m, err := j.ask("job", "info")
	if err != nil {
		return Info{}, err
	}
	return parseInfo(&m), m.err
}

// ReadOutput returns the kept bytes of a stream ("out" or "err") from
// since, the stream's total, and whether the job ended.
func (j *JobClient) ReadOutput(stream string, since int64) (segs []Segment, total int64, ended bool, err error) {
	m, err := j.ask("total", "read", word(stream), since)
	if err != nil {
		return nil, 0, false, err
	}
	total, ended = m.int64(1), m.bool(2)
	for {
		m, err := j.next()
		if err != nil {
			return nil, 0, false, err
		}
		if m.verb() == "end" {
			return segs, total, ended, nil
		}
		segs = append(segs, Segment{Offset: m.int64(2), Data: m.data})
	}
}

// Event is one message of a follow: a piece of "out" or "err" at its
// offset; "ended" with the job's status; or "gone" (the window closed).
type Event struct {
	Stream string
	Offset int64
	Data   []byte
	Status int
}

// Follow asks for the output from the given offsets on and what comes
// after (errSince -1: stderr from now on); Next reads it.
func (j *JobClient) Follow(outSince, errSince int64) error {
	_, err := j.c.Write(appendMessage(nil, "follow", outSince, errSince))
	return err
}

func (j *JobClient) Next() (Event, error) {
	m, err := j.next()
	if err != nil {
		return Event{}, err
	}
	switch m.verb() {
	case "data":
		return Event{Stream: m.field(1), Offset: m.int64(2), Data: m.data}, m.err
	case "ended":
		return Event{Stream: "ended", Status: m.int(1)}, m.err
	case "gone":
		return Event{Stream: "gone"}, nil
	}
	return Event{}, fmt.Errorf("unexpected message from the job's relay: %q", m.words)
}

// Send types text into the job's window, then Enter if enter.
func (j *JobClient) Send(text string, enter bool) error {
	_, err := j.ask("ok", "send", text, enter)
	return err
}

// Stop runs the two-phase kill and returns the job's status and how it
// stopped.
func (j *JobClient) Stop() (int, string, error) {
	m, err := j.ask("stopped", "stop")
	if err != nil {
		return 0, "", err
	}
	return m.int(1), m.text(2), m.err
}

// CloseWindow has the relay of an ended job close its window.
func (j *JobClient) CloseWindow() error {
	_, err := j.ask("ok", "close")
	return err
}

// Activate makes a spare window's relay the job's, and returns the
// window's pane.
func (j *JobClient) Activate(id, name, command, socket string) (string, error) {
	m, err := j.ask("ok", "activate", id, name, command, socket)
	if err != nil {
		return "", err
	}
	return m.text(1), m.err
}

// Started waits until the job runs in its window; ended is set (with its
// status) for a job that ended already.
func (j *JobClient) Started() (ended bool, status int, err error) {
	m, err := j.ask("", "started")
	switch {
	case err != nil:
		return false, 0, err
	case m.verb() == "ended":
		return true, m.int(1), m.err
	case m.verb() == "running":
		return false, 0, nil
	}
	return false, 0, fmt.Errorf("unexpected answer from the job's relay: %q", m.words)
}

// Discard closes a spare window that was not taken.
func (j *JobClient) Discard() { j.c.Write(appendMessage(nil, "discard")) }
