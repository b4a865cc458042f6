package markers

import (
	"bytes"
	"io"
	"strconv"
)

// Extractor reads the raw output stream of the pane, chunk by chunk as it
// arrives, and writes to Out exactly what the command printed between its
// START and END markers.
//
// The pane's terminal turns every "\n" the command writes into "\r\n"
// (ONLCR); the extractor turns each "\r\n" back into "\n", which restores
// the command's bytes exactly, its own "\r"s included. Everything before
// START (the echo of the typed line, the shell's escape sequences) and after
// END (the next prompt) is dropped, and so are the frames of stderr that
// ptysend wrote to the terminal (see AppendStderrFrame). Output
// is passed on as soon as it cannot be the beginning of the END marker or
// of a frame, so long outputs stream with bounded memory.
type Extractor struct {
	out     io.Writer
	start   []byte
	end     []byte
	started bool
	done    bool
	status  int
	pending []byte // bytes held back: a possible marker prefix or a lone '\r'
	joined  []byte // pending followed by the next chunk
	scratch []byte
	frames  frameFilter
	err     error
}

// NewExtractor returns an extractor for the call with the given id.
func NewExtractor(id ID, out io.Writer) *Extractor {
	return &Extractor{out: out, start: []byte(Start(id)), end: []byte(endPrefix(id))}
}

// Started reports whether the START marker has been seen.
func (e *Extractor) Started() bool { return e.started }

// Done reports whether the END marker has been seen; Status is valid then.
func (e *Extractor) Done() bool { return e.done }

// Holding reports whether bytes are held back for the next chunk (a
// possible marker prefix, a lone '\r'): what Out got so far is then not
// yet all the stream fed so far.
func (e *Extractor) Holding() bool { return len(e.pending) > 0 || e.frames.holding() }

// Status is the command's exit status, once Done.
func (e *Extractor) Status() int { return e.status }

// Write feeds the next chunk of the raw stream. It fails only when Out fails.
func (e *Extractor) Write(p []byte) (int, error) {
	n := len(p)
	if e.done || e.err != nil {
		return n, e.err
	}
	data := p
	if !e.started {
		data = e.join(data)
		i := bytes.Index(data, e.start)
		if i < 0 {
			e.hold(data[len(data)-heldPrefix(data, e.start):])
			return n, nil
		}
		e.started = true
		data = data[i+len(e.start):]
	}
	e.consume(e.join(e.frames.filter(data)))
	return n, e.err
}

// join puts the bytes held back from the last chunk before data.
func (e *Extractor) join(data []byte) []byte {
	if len(e.pending) == 0 {
		return data
	}
	// The buffers are reused: a chunk often ends with a held '\r', and
	// a new slice per chunk made ptysend's memory grow with the output
	// (no GC runs in so short a process): +0.5 MiB for seq 1 300000.
	e.joined = append(append(e.joined[:0], e.pending...), data...)
	e.pending = e.pending[:0]
	return e.joined
}

// consume handles output after START: everything up to END goes out.
func (e *Extractor) consume(data []byte) {
	if i := bytes.Index(data, e.end); i >= 0 {
		status, ok, complete := parseStatus(data[i+len(e.end):])
		if !complete {
			e.emit(data[:i])
			e.hold(data[i:])
			return
		}
		if ok {
			e.emit(data[:i])
			e.done, e.status = true, status
			return
		}
		// Our prefix followed by garbage is not our marker: it is output.
		e.emit(data[:i+len(e.end)])
		e.consume(data[i+len(e.end):])
		return
	}
	keep := heldPrefix(data, e.end)
	body := data[:len(data)-keep]
	if keep == 0 && len(body) > 0 && body[len(body)-1] == '\r' {
		keep = 1
		body = body[:len(body)-1]
	}
	e.emit(body)
	e.hold(data[len(data)-keep:])
}

// hold keeps b (a copy) for the next chunk. b never lies in e.pending's
// own storage: it is part of the caller's chunk, of e.joined or of the
// frame filter's buffers.
func (e *Extractor) hold(b []byte) {
	e.pending = append(e.pending[:0], b...)
}

// emit writes b with "\r\n" turned back into "\n". A '\r' that may pair
// with a '\n' in the next chunk never reaches emit: consume holds it back.
func (e *Extractor) emit(b []byte) {
	if len(b) == 0 || e.err != nil {
		return
	}
	e.scratch = e.scratch[:0]
	for len(b) > 0 {
		i := bytes.Index(b, []byte("\r\n"))
		if i < 0 {
			e.scratch = append(e.scratch, b...)
			break
		}
		e.scratch = append(e.scratch, b[:i]...)
		e.scratch = append(e.scratch, '\n')
		b = b[i+2:]
	}
	_, e.err = e.out.Write(e.scratch)
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

// heldPrefix is the length of the longest suffix of data that is a proper
// prefix of marker: those bytes may be the start of a marker split across
// chunks and must wait for the next one.
func heldPrefix(data, marker []byte) int {
	max := len(marker) - 1
	if max > len(data) {
		max = len(data)
	}
	for k := max; k > 0; k-- {
		if bytes.Equal(data[len(data)-k:], marker[:k]) {
			return k
		}
	}
	return 0
}
