package markers

import (
	"bytes"
	"io"
)

// FrameSplitter splits the stream of one far call. A far command's stderr
// reaches the terminal in frames, as a local command's does (R and r
// markers of the call's id around each piece), but ptysend cannot read it
// from a local fifo: the frames' contents are the command's stderr. The
// splitter sits in front of the Extractor: what lies outside the frames
// goes on to it, what lies inside goes to the sink, with the far
// terminal's "\r\n" turned back into "\n".
type FrameSplitter struct {
	out, sink   io.Writer
	open, close []byte
	inFrame     bool
	carry       // a possible marker prefix, or a '\r' that may pair with '\n'
	scratch     []byte
	err         error
}

// NewFrameSplitter returns a splitter for call id: out gets the stream
// without frames, sink the frames' contents.
func NewFrameSplitter(id ID, out, sink io.Writer) *FrameSplitter {
	return &FrameSplitter{out: out, sink: sink, open: []byte(frameOpen(id)), close: []byte(frameClose(id))}
}

// Holding reports whether bytes wait for the next chunk.
func (f *FrameSplitter) Holding() bool { return f.holding() }

// Write feeds the next chunk of the stream.
func (f *FrameSplitter) Write(p []byte) (int, error) {
	if f.err != nil {
		return len(p), f.err
	}
	data := f.join(p)
	for len(data) > 0 && f.err == nil {
		if !f.inFrame {
			i := bytes.Index(data, f.open)
			if i < 0 {
				keep := heldPrefix(data, f.open)
				f.write(f.out, data[:len(data)-keep])
				f.hold(data[len(data)-keep:])
				break
			}
			f.write(f.out, data[:i])
			data, f.inFrame = data[i+len(f.open):], true
			continue
		}
		i := bytes.Index(data, f.close)
		if i < 0 {
			keep := heldTail(data, f.close)
			f.writeStderr(data[:len(data)-keep])
			f.hold(data[len(data)-keep:])
			break
		}
		f.writeStderr(data[:i])
		data, f.inFrame = data[i+len(f.close):], false
	}
	return len(p), f.err
}

// Flush passes on what is held back at the end of the stream.
func (f *FrameSplitter) Flush() error {
	if f.inFrame {
		f.writeStderr(f.take())
	} else {
		f.write(f.out, f.take())
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
	f.scratch = appendLF(f.scratch[:0], b)
	f.write(f.sink, f.scratch)
}
