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
	t, err := AskTurn(path, call)
	if err == nil {
		err = t.Wait(ctx, deadline, queued)
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// AskTurn sends the request of RequestTurn and returns without waiting (Wait): the relay works on
// it while the caller goes on with what it must do anyway.
func AskTurn(path, call string) (*Turn, error) {
	c, err := platform.DialUnix(path)
	if err != nil {
		return nil, fmt.Errorf("%w on %s: %v", ErrNoRelay, path, err)
	}
	if err := sendToRelay(c, "turn", call); err != nil {
		c.Close()
		return nil, err
	}
	return &Turn{Path: path, c: c, r: bufio.NewReaderSize(c, 64<<10)}, nil
}

// Wait waits for the turn AskTurn asked for, as RequestTurn does; on an error the turn is closed.
func (t *Turn) Wait(ctx context.Context, deadline time.Time, queued func(Queued)) (err error) {
	defer func() {
		if err != nil {
			t.c.Close()
		}
	}()
	stop := context.AfterFunc(ctx, func() { t.c.SetReadDeadline(time.Now()) })
	defer stop()
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

// sendToRelay sends a request. An older relay greets and hangs up at once, maybe before the
// request is written: the write's failure is left to the read, which finds the greeting.
func sendToRelay(c io.Writer, verb string, fields ...any) error {
	if err := send(c, verb, fields...); err != nil && hungUp(err) != ErrHungUp {
		return err
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

// JobClient is one connection to a job window's relay.
type JobClient struct {
	c *os.File
	r *bufio.Reader
}

// DialJob connects to the job window's relay at path; a dead relay's socket goes.
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

// ask sends a request and reads the answer's first message, which must be want ("": any).
func (j *JobClient) ask(want, verb string, fields ...any) (message, error) {
	if err := send(j.c, verb, fields...); err != nil {
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
	if m.verb() == "error" {
		return message{}, errorMessage(m.text(1))
	}
	return m, nil
}

// Info is what a job's relay says about the job, and what --jobs --json prints.
type Info struct {
	Name    string `json:"name"`
	Command string `json:"command"`
	Running bool   `json:"running" jsonschema:"the job still runs"`
	// Status is an ended job's exit status; -1 when its supervisor was killed.
	Status      *int       `json:"exit_status" jsonschema:"an ended job's exit status; null while it runs"`
	Started     time.Time  `json:"started"`
	Ended       *time.Time `json:"ended,omitempty"`
	Runtime     float64    `json:"runtime_seconds" jsonschema:"how long it ran, so far or in all"`
	OutputBytes int64      `json:"output_bytes"`
	StderrBytes int64      `json:"stderr_bytes"`
	LastLine    string     `json:"last_line" jsonschema:"the last line it printed"`
	Pane        string     `json:"pane"`
	StoppedBy   string     `json:"stopped_by,omitempty"` // how --job-stop stopped it
	Waiters     int        `json:"waiters"`
	FullScreen  bool       `json:"full_screen" jsonschema:"a full-screen program shows in its window: job_screen reads it"` // a full-screen program shows in its window now
}

func (j *JobClient) Info() (Info, error) {
	m, err := j.ask("job", "info")
	if err != nil {
		return Info{}, err
	}
	return parseInfo(&m), m.err
}

// appendInfo appends info as the message "job" (its runtime is the reader's to count).
func appendInfo(b []byte, info Info) []byte {
	status, ended := 0, time.Time{}
	if !info.Running {
		status, ended = *info.Status, *info.Ended
	}
	return appendMessage(b, "job", info.Name, info.Command, !info.Running, status, info.Started, ended, info.OutputBytes,
		info.StderrBytes, info.LastLine, info.Pane, info.StoppedBy, info.Waiters, info.FullScreen)
}

func parseInfo(m *message) Info {
	info := Info{Name: m.text(1), Command: m.text(2), Running: !m.bool(3), Started: m.time(5), OutputBytes: m.int64(7),
		StderrBytes: m.int64(8), LastLine: m.text(9), Pane: m.text(10), StoppedBy: m.text(11), Waiters: m.int(12),
		FullScreen: m.bool(13)}
	end := time.Now()
	if !info.Running {
		status, at := m.int(4), m.time(6)
		info.Status, info.Ended, end = &status, &at, at
	}
	if !info.Started.IsZero() {
		info.Runtime = end.Sub(info.Started).Seconds()
	}
	return info
}

// ReadOutput reads what a stream ("out" or "err") keeps from since on.
func (j *JobClient) ReadOutput(stream string, since int64) (segs []Segment, total int64, ended bool, err error) {
	m, err := j.ask("total", "read", word(stream), since)
	if err != nil {
		return nil, 0, false, err
	}
	total, ended = m.int64(1), m.bool(2)
	for m, err = j.next(); err == nil && m.verb() != "end"; m, err = j.next() {
		segs = append(segs, Segment{Offset: m.int64(2), Data: m.data})
	}
	if err != nil {
		return nil, 0, false, err
	}
	return segs, total, ended, nil
}

// Event is one message of a follow: a piece of "out" or "err" at its
// offset; "ended" with the job's status; or "gone" (the window closed).
type Event struct {
	Stream string
	Offset int64
	Data   []byte
	Status int
}

// Follow asks for the output from those offsets on (errSince -1: from now); Next reads it.
func (j *JobClient) Follow(outSince, errSince int64) error {
	return send(j.c, "follow", outSince, errSince)
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
func (j *JobClient) Send(text string, enter bool) error { return j.askOK("send", text, enter) }

func (j *JobClient) askOK(verb string, fields ...any) error {
	_, err := j.ask("ok", verb, fields...)
	return err
}

// Stop stops the job, closes its window, and returns it as its relay held it last.
func (j *JobClient) Stop() (*Kept, error) {
	if err := send(j.c, "stop"); err != nil {
		return nil, hungUp(err)
	}
	return readKept(j.next, true)
}

// CloseWindow has the relay of an ended job close its window.
func (j *JobClient) CloseWindow() error { return j.askOK("close") }

// Activate makes a spare window's relay the job's; it returns the pane.
func (j *JobClient) Activate(id, name, command, socket, ready string) (string, error) {
	m, err := j.ask("ok", "activate", id, name, command, socket, ready)
	if err != nil {
		return "", err
	}
	return m.text(1), m.err
}

// Discard closes a spare window that was not taken.
func (j *JobClient) Discard() { send(j.c, "discard") }
