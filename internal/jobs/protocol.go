package jobs

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// The keeper's protocol. A client sends one request per line; the keeper
// answers each before it reads the next:
//
//	info                      one JSON line: the job's Info
//	read out|err SINCE        one JSON line (a readHeader), then the bytes
//	                          of its segments, back to back
//	follow OUTSINCE ERRSINCE  the output from those offsets (ERRSINCE -1:
//	                          stderr from now on), then whatever comes, as
//	                          it comes: "out OFFSET LEN\n" or "err OFFSET
//	                          LEN\n" followed by LEN bytes; "end STATUS\n"
//	                          once the job ended and all its output was
//	                          sent; "gone\n" when the window closed first.
//	                          The last request of a connection.
//	send HEX ENTER            types the text (bracketed when the job's
//	                          program asked for it), then Enter if ENTER
//	                          is 1: "ok"
//	type HEX                  types the bytes as they are: "ok"
//	stop                      the two-phase kill; "stopped STATUS HOWHEX"
//	                          and the window goes
//	close                     the window of an ended job goes: "ok"
//
// A failure is "error HEX\n" (the message in hex).

// Info is what a keeper says about its job, and what --jobs --json prints.
type Info struct {
	Name    string `json:"name"`
	Command string `json:"command"`
	Running bool   `json:"running"`
	// Status is the job's exit status once it ended; -1 when the job's
	// window lost it (its supervisor was killed).
	Status      *int       `json:"exit_status"`
	Started     time.Time  `json:"started"`
	Ended       *time.Time `json:"ended,omitempty"`
	Runtime     float64    `json:"runtime_seconds"`
	OutputBytes int64      `json:"output_bytes"`
	StderrBytes int64      `json:"stderr_bytes"`
	LastLine    string     `json:"last_line"`
	Pane        string     `json:"pane"`
	// StoppedBy says how --job-stop stopped it, if it did.
	StoppedBy string `json:"stopped_by,omitempty"`
	Waiters   int    `json:"waiters"`
}

// readHeader describes the bytes that follow a read's answer.
type readHeader struct {
	Total    int64         `json:"total"`
	Segments []segmentHead `json:"segments"`
	Ended    bool          `json:"ended"`
}

type segmentHead struct {
	Offset int64 `json:"offset"`
	Length int   `json:"length"`
}

// client is one connection to a keeper.
type client struct {
	conn *os.File
	r    *bufio.Reader
}

func (c *client) Close() error { return c.conn.Close() }

// request sends one request line.
func (c *client) request(format string, args ...any) error {
	_, err := fmt.Fprintf(c.conn, format+"\n", args...)
	return err
}

// line reads one answer line, turning "error HEX" into an error.
func (c *client) line() (string, error) {
	s, err := c.r.ReadString('\n')
	if err != nil {
		if errors.Is(err, io.EOF) {
			return "", errKeeperGone
		}
		return "", err
	}
	s = strings.TrimSuffix(s, "\n")
	if msg, ok := strings.CutPrefix(s, "error "); ok {
		b, _ := hex.DecodeString(msg)
		return "", errors.New(string(b))
	}
	return s, nil
}

// errKeeperGone: the keeper hung up (its window closed meanwhile).
var errKeeperGone = errors.New("the job's keeper hung up")

func (c *client) Info() (Info, error) {
	var info Info
	if err := c.request("info"); err != nil {
		return info, err
	}
	s, err := c.line()
	if err != nil {
		return info, err
	}
	return info, json.Unmarshal([]byte(s), &info)
}

// Read returns the kept bytes of a stream ("out" or "err") from since.
func (c *client) Read(stream string, since int64) (readHeader, [][]byte, error) {
	var h readHeader
	if err := c.request("read %s %d", stream, since); err != nil {
		return h, nil, err
	}
	s, err := c.line()
	if err != nil {
		return h, nil, err
	}
	if err := json.Unmarshal([]byte(s), &h); err != nil {
		return h, nil, err
	}
	data := make([][]byte, len(h.Segments))
	for i, seg := range h.Segments {
		data[i] = make([]byte, seg.Length)
		if _, err := io.ReadFull(c.r, data[i]); err != nil {
			return h, nil, err
		}
	}
	return h, data, nil
}

// event is one message of a follow.
type event struct {
	Stream string // "out", "err"; "end" or "gone" at the end
	Offset int64
	Data   []byte
	Status int // for "end"
}

// Follow asks for the output from the given offsets and what comes after.
func (c *client) Follow(outSince, errSince int64) error {
	return c.request("follow %d %d", outSince, errSince)
}

// Next reads the next event of a follow.
func (c *client) Next() (event, error) {
	s, err := c.line()
	if err != nil {
		return event{}, err
	}
	f := strings.Fields(s)
	switch {
	case len(f) == 3 && (f[0] == "out" || f[0] == "err"):
		off, err1 := strconv.ParseInt(f[1], 10, 64)
		n, err2 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || n < 0 {
			break
		}
		data := make([]byte, n)
		if _, err := io.ReadFull(c.r, data); err != nil {
			return event{}, err
		}
		return event{Stream: f[0], Offset: off, Data: data}, nil
	case len(f) == 2 && f[0] == "end":
		st, err := strconv.Atoi(f[1])
		if err != nil {
			break
		}
		return event{Stream: "end", Status: st}, nil
	case len(f) == 1 && f[0] == "gone":
		return event{Stream: "gone"}, nil
	}
	return event{}, fmt.Errorf("unexpected message from the job's keeper: %q", s)
}

// Send types text into the job's window, then Enter unless noEnter.
func (c *client) Send(text string, enter bool) error {
	e := 0
	if enter {
		e = 1
	}
	return c.simple("send %x %d", text, e)
}

// Type types bytes into the job's window as they are.
func (c *client) Type(keys string) error { return c.simple("type %x", keys) }

// CloseWindow has the keeper of an ended job close its window.
func (c *client) CloseWindow() error { return c.simple("close") }

func (c *client) simple(format string, args ...any) error {
	if err := c.request(format, args...); err != nil {
		return err
	}
	s, err := c.line()
	if err == nil && s != "ok" {
		err = fmt.Errorf("unexpected answer from the job's keeper: %q", s)
	}
	return err
}

// Stop runs the two-phase kill and returns the job's status and how it
// stopped.
func (c *client) Stop() (int, string, error) {
	if err := c.request("stop"); err != nil {
		return 0, "", err
	}
	s, err := c.line()
	if err != nil {
		return 0, "", err
	}
	f := strings.Fields(s)
	if len(f) == 3 && f[0] == "stopped" {
		st, err1 := strconv.Atoi(f[1])
		how, err2 := hex.DecodeString(f[2])
		if err1 == nil && err2 == nil {
			return st, string(how), nil
		}
	}
	return 0, "", fmt.Errorf("unexpected answer from the job's keeper: %q", s)
}
