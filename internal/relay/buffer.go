package relay

import (
	"bytes"
	"fmt"
)

// Buffer keeps what a command or a job printed whole up to a bound; past
// it, the first headSize bytes and the last bound-headSize. Offsets count
// every byte ever written, so they stay valid whatever was dropped.
type Buffer struct {
	bound, headSize int

	// head holds everything until the bound is reached, then the first
	// headSize bytes; ring the last ones, circular, the oldest at ring[pos].
	head  []byte
	ring  []byte
	pos   int
	total int64
}

// The bounds of a job's output, its stderr, and a command of the history.
const (
	OutputBound  = 8 << 20
	OutputHead   = 1 << 20
	StderrBound  = 2 << 20
	StderrHead   = 256 << 10
	HistoryBound = 1 << 20
	HistoryHead  = 512 << 10
)

// NewBuffer returns a buffer of that bound and head (0 < headSize < bound).
func NewBuffer(bound, headSize int) *Buffer { return &Buffer{bound: bound, headSize: headSize} }

// Total is the number of bytes ever written: the offset of the next one.
func (b *Buffer) Total() int64 { return b.total }

// Write keeps p. It never fails.
func (b *Buffer) Write(p []byte) (int, error) {
	n := len(p)
	b.total += int64(n)
	if b.ring == nil {
		if len(b.head)+n <= b.bound {
			b.head = append(b.head, p...)
			return n, nil
		}
		// Past the bound: head keeps its first bytes, ring the last of head+p.
		p = append(b.head, p...)
		b.head = append([]byte(nil), p[:b.headSize]...)
		b.ring = make([]byte, b.bound-b.headSize)
	}
	if len(p) >= len(b.ring) {
		p, b.pos = p[len(p)-len(b.ring):], 0
	}
	k := copy(b.ring[b.pos:], p)
	copy(b.ring, p[k:])
	b.pos = (b.pos + len(p)) % len(b.ring)
	return n, nil
}

// Segment is a run of kept bytes and where it starts in the output.
type Segment struct {
	Offset int64
	Data   []byte
}

// Read returns copies of the bytes kept from offset since on: one segment,
// or two around the dropped middle. The first may start after since.
func (b *Buffer) Read(since int64) []Segment {
	since = max(0, min(since, b.total))
	var segs []Segment
	if b.ring == nil || since < int64(len(b.head)) {
		segs = append(segs, Segment{since, append([]byte(nil), b.head[since:]...)})
	}
	if b.ring == nil {
		return segs
	}
	tailStart := b.total - int64(len(b.ring))
	from := max(since, tailStart)
	tail := make([]byte, 0, b.total-from)
	older, newer := b.ring[b.pos:], b.ring[:b.pos]
	if skip := int(from - tailStart); skip < len(older) {
		tail = append(append(tail, older[skip:]...), newer...)
	} else {
		tail = append(tail, newer[skip-len(older):]...)
	}
	if len(tail) > 0 || len(segs) == 0 {
		segs = append(segs, Segment{from, tail})
	}
	return segs
}

// Tail returns a copy of the last n bytes kept (fewer when fewer are).
func (b *Buffer) Tail(n int) []byte {
	segs := b.Read(b.total - int64(n))
	return segs[len(segs)-1].Data
}

// Dropped is how many bytes the buffer no longer holds.
func (b *Buffer) Dropped() int64 {
	if b.ring == nil {
		return 0
	}
	return b.total - int64(len(b.head)) - int64(len(b.ring))
}

// Render is what the buffer holds, with a line that says where the middle went:
// the head up to its last line end, the tail from its first line start.
func (b *Buffer) Render() []byte {
	segs := b.Read(0)
	if len(segs) == 1 {
		return segs[0].Data
	}
	head, tail := segs[0].Data, segs[1].Data
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	}
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i+1 < len(tail) {
		tail = tail[i+1:]
	}
	out := append([]byte(nil), head...)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	out = fmt.Appendf(out, "[ptybridge: %d bytes of output left out here]\n", b.total-int64(len(head))-int64(len(tail)))
	return append(out, tail...)
}

// crlfUndoer turns the terminal's "\r\n" back into "\n" as a stream
// passes: a "\r" at the end of a write waits for the next.
type crlfUndoer struct {
	held bool
	buf  []byte
}

func (c *crlfUndoer) undo(p []byte) []byte {
	c.buf = c.buf[:0]
	if c.held {
		if len(p) == 0 || p[0] != '\n' {
			c.buf = append(c.buf, '\r')
		}
		c.held = false
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\r')
		if i < 0 {
			c.buf = append(c.buf, p...)
			break
		}
		c.buf = append(c.buf, p[:i]...)
		p = p[i+1:]
		switch {
		case len(p) == 0:
			c.held = true
		case p[0] != '\n':
			c.buf = append(c.buf, '\r')
		}
	}
	return c.buf
}
