package markers

import (
	"bytes"
	"io"
)

// A far command's stderr reaches the terminal in frames, as a local
// command's does (R and r markers of the call's id around each piece), but
// ptysend cannot read it from a local fifo: the frames' contents are the
// command's stderr. FrameSplitter sits in front of the Extractor: what
// lies outside the frames goes on to it, what lies inside goes to the
// sink, with the far terminal's "\r\n" turned back into "\n".

func frameOpen(id ID) string  { return "\x1b]" + osc + ";R;" + string(id) + "\a" }
func frameClose(id ID) string { return "\x1b]" + osc + ";r;" + string(id) + "\a" }

// FrameSplitter splits the stream of one far call.
type FrameSplitter struct {
	out, sink   io.Writer
	open, close []byte
	inFrame     bool
	pending     []byte // a possible marker prefix, or a '\r' that may pair with '\n'
	joined      []byte
	scratch     []byte
	err         error
}

// NewFrameSplitter returns a splitter for call id: out gets the stream
// without frames, sink the frames' contents.
func NewFrameSplitter(id ID, out, sink io.Writer) *FrameSplitter {
	return &FrameSplitter{out: out, sink: sink, open: []byte(frameOpen(id)), close: []byte(frameClose(id))}
}

// Holding reports whether bytes wait for the next chunk.
func (f *FrameSplitter) Holding() bool { return len(f.pending) > 0 }

// Write feeds the next chunk of the stream.
func (f *FrameSplitter) Write(p []byte) (int, error) {
	if f.err != nil {
		return len(p), f.err
	}
	data := p
	if len(f.pending) > 0 {
		f.joined = append(append(f.joined[:0], f.pending...), p...)
		data = f.joined
		f.pending = f.pending[:0]
	}
	for len(data) > 0 && f.err == nil {
		if !f.inFrame {
			i := bytes.Index(data, f.open)
			if i < 0 {
				keep := heldPrefix(data, f.open)
				f.write(f.out, data[:len(data)-keep])
				f.pending = append(f.pending, data[len(data)-keep:]...)
				return len(p), f.err
			}
			f.write(f.out, data[:i])
			data = data[i+len(f.open):]
			f.inFrame = true
			continue
		}
		i := bytes.Index(data, f.close)
		if i < 0 {
			keep := heldPrefix(data, f.close)
			body := data[:len(data)-keep]
			if keep == 0 && len(body) > 0 && body[len(body)-1] == '\r' {
				keep = 1
				body = body[:len(body)-1]
			}
			f.writeStderr(body)
			f.pending = append(f.pending, data[len(data)-keep:]...)
			return len(p), f.err
		}
		f.writeStderr(data[:i])
		data = data[i+len(f.close):]
		f.inFrame = false
	}
	return len(p), f.err
}

// Flush passes on what is held back at the end of the stream.
func (f *FrameSplitter) Flush() error {
	held := f.pending
	f.pending = nil
	if f.inFrame {
		f.writeStderr(held)
	} else {
		f.write(f.out, held)
	}
	return f.err
}

func (f *FrameSplitter) write(w io.Writer, b []byte) {
	if len(b) == 0 || f.err != nil {
		return
	}
	_, f.err = w.Write(b)
}

// writeStderr undoes the far terminal's ONLCR.
func (f *FrameSplitter) writeStderr(b []byte) {
	if len(b) == 0 {
		return
	}
	f.scratch = f.scratch[:0]
	for {
		i := bytes.Index(b, []byte("\r\n"))
		if i < 0 {
			f.scratch = append(f.scratch, b...)
			break
		}
		f.scratch = append(f.scratch, b[:i]...)
		f.scratch = append(f.scratch, '\n')
		b = b[i+2:]
	}
	f.write(f.sink, f.scratch)
}
