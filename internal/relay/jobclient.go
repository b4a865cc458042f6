package relay

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/platform"
)

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
	Running bool   `json:"running"`
	// Status is an ended job's exit status; -1 when its supervisor was killed.
	Status      *int       `json:"exit_status"`
	Started     time.Time  `json:"started"`
	Ended       *time.Time `json:"ended,omitempty"`
	Runtime     float64    `json:"runtime_seconds"`
	OutputBytes int64      `json:"output_bytes"`
	StderrBytes int64      `json:"stderr_bytes"`
	LastLine    string     `json:"last_line"`
	Pane        string     `json:"pane"`
	StoppedBy   string     `json:"stopped_by,omitempty"` // how --job-stop stopped it
	Waiters     int        `json:"waiters"`
}

func (j *JobClient) Info() (Info, error) {
	m, err := j.ask("job", "info")
	if err != nil {
		return Info{}, err
	}
	info := Info{Name: m.text(1), Command: m.text(2), Running: !m.bool(3), Started: m.time(5), OutputBytes: m.int64(7),
		StderrBytes: m.int64(8), LastLine: m.text(9), Pane: m.text(10), StoppedBy: m.text(11), Waiters: m.int(12)}
	end := time.Now()
	if !info.Running {
		status, at := m.int(4), m.time(6)
		info.Status, info.Ended, end = &status, &at, at
	}
	if !info.Started.IsZero() {
		info.Runtime = end.Sub(info.Started).Seconds()
	}
	return info, m.err
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
func (j *JobClient) Send(text string, enter bool) error {
	_, err := j.ask("ok", "send", text, enter)
	return err
}

// Stop stops the job and returns its status and how it stopped.
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

// Activate makes a spare window's relay the job's; it returns the pane.
func (j *JobClient) Activate(id, name, command, socket string) (string, error) {
	m, err := j.ask("ok", "activate", id, name, command, socket)
	if err != nil {
		return "", err
	}
	return m.text(1), m.err
}

// Started waits until the job runs in its window, or tells that it ended already.
func (j *JobClient) Started() (ended bool, status int, err error) {
	m, err := j.ask("", "started")
	if err != nil || m.verb() == "running" {
		return false, 0, err
	}
	if m.verb() == "ended" {
		return true, m.int(1), m.err
	}
	return false, 0, fmt.Errorf("unexpected answer from the job's relay: %q", m.words)
}

// Discard closes a spare window that was not taken.
func (j *JobClient) Discard() { send(j.c, "discard") }
