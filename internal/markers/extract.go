package markers

import (
	"bytes"
	"io"
	"strconv"
)

// Extractor reads the raw output stream of the pane, chunk by chunk, and
// writes to Out exactly what the command printed between START and END.
//
// The pane's terminal turns every "\n" the command writes into "\r\n"
// (ONLCR); turning each "\r\n" back into "\n" restores the command's bytes
// exactly, its own "\r"s included. What comes before START (the echo of the
// typed line) and after END (the next prompt) is dropped, and so are the
// frames of stderr (see AppendStderrFrame). Output is passed on as soon as
// it cannot be the start of END or of a frame: memory stays bounded.
type Extractor struct {
	out           io.Writer
	start, end    []byte
	started, done bool
	status        int
	carry         // a possible marker prefix or a lone '\r'
	writer
	frames frameFilter
}

func NewExtractor(id ID, out io.Writer) *Extractor {
	return &Extractor{out: out, start: []byte(Start(id)), end: []byte(endPrefix(id))}
}

func (e *Extractor) Started() bool { return e.started }

// Done reports whether END has been seen; Status is valid then.
func (e *Extractor) Done() bool { return e.done }

// Holding reports whether bytes wait for the next chunk.
func (e *Extractor) Holding() bool { return e.holding() || e.frames.holding() }

func (e *Extractor) Status() int { return e.status }

// Write feeds the next chunk of the raw stream. It fails only when Out fails.
func (e *Extractor) Write(p []byte) (int, error) {
	if e.done || e.err != nil {
		return len(p), e.err
	}
	data := p
	if !e.started {
		data = e.join(data)
		i := bytes.Index(data, e.start)
		if i < 0 {
			e.keep(data, heldPrefix(data, e.start))
			return len(p), nil
		}
		e.started = true
		data = data[i+len(e.start):]
	}
	e.consume(e.join(e.frames.filter(data)))
	return len(p), e.err
}

// consume handles output after START: everything up to END goes out.
func (e *Extractor) consume(data []byte) {
	i := bytes.Index(data, e.end)
	if i < 0 {
		e.writeLF(e.out, e.keep(data, heldTail(data, e.end)))
		return
	}
	status, ok, complete := parseStatus(data[i+len(e.end):])
	switch {
	case !complete:
		e.writeLF(e.out, data[:i])
		e.hold(data[i:])
	case ok:
		e.writeLF(e.out, data[:i])
		e.done, e.status = true, status
	default: // our prefix followed by garbage is not our marker: it is output
		e.writeLF(e.out, data[:i+len(e.end)])
		e.consume(data[i+len(e.end):])
	}
}

// parseStatus reads "<digits>\a" at the start of b. complete is false when
// b may still grow into a valid status; ok is false when it never can.
func parseStatus(b []byte) (status int, ok, complete bool) {
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9' && i < 3:
			continue
		case c == '\a' && i > 0:
			s, err := strconv.Atoi(string(b[:i]))
			return s, err == nil, true
		default:
			return 0, false, true
		}
	}
	return 0, false, false
}

// carry holds back the end of a chunk that may start a marker, and puts it
// before the next chunk. Its buffers are reused: a chunk often ends with a
// held '\r', and a new slice per chunk made ptysend's memory grow with the
// output (no GC runs in so short a process): +0.5 MiB for seq 1 300000.
type carry struct {
	pending, joined []byte
}

func (c *carry) holding() bool { return len(c.pending) > 0 }

// join returns the bytes held back followed by p, until the next join.
func (c *carry) join(p []byte) []byte {
	if len(c.pending) == 0 {
		return p
	}
	c.joined = append(append(c.joined[:0], c.pending...), p...)
	c.pending = c.pending[:0]
	return c.joined
}

// hold keeps a copy of b (which never lies in c.pending's storage).
func (c *carry) hold(b []byte) { c.pending = append(c.pending[:0], b...) }

// keep holds the last n bytes of data and returns the others.
func (c *carry) keep(data []byte, n int) []byte {
	c.hold(data[len(data)-n:])
	return data[:len(data)-n]
}

// take returns what is held back, at the end of the stream.
func (c *carry) take() []byte {
	held := c.pending
	c.pending = nil
	return held
}

// heldPrefix is the length of the longest suffix of data that is a proper
// prefix of marker: a marker that the next chunk may complete.
func heldPrefix(data, marker []byte) int {
	for k := min(len(marker)-1, len(data)); k > 0; k-- {
		if bytes.HasSuffix(data, marker[:k]) {
			return k
		}
	}
	return 0
}

// heldTail is heldPrefix, or 1 for a final '\r', which may pair with a
// '\n' at the start of the next chunk.
func heldTail(data, marker []byte) int {
	if k := heldPrefix(data, marker); k > 0 || len(data) == 0 || data[len(data)-1] != '\r' {
		return k
	}
	return 1
}

// writer writes to its callers' writers until one fails.
type writer struct {
	scratch []byte
	err     error
}

func (w *writer) write(to io.Writer, b []byte) {
	if len(b) > 0 && w.err == nil {
		_, w.err = to.Write(b)
	}
}

// writeLF writes b with every "\r\n" turned back into "\n", undoing the
// terminal's ONLCR.
func (w *writer) writeLF(to io.Writer, b []byte) {
	w.scratch = w.scratch[:0]
	for i := bytes.Index(b, []byte("\r\n")); i >= 0; i = bytes.Index(b, []byte("\r\n")) {
		w.scratch = append(append(w.scratch, b[:i]...), '\n')
		b = b[i+2:]
	}
	w.scratch = append(w.scratch, b...)
	w.write(to, w.scratch)
}
