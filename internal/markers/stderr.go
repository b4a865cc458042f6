package markers

import (
	"bytes"
	"io"
)

// The command's stderr reaches ptysend through a fifo, so that the agent
// gets it apart from stdout. ptysend passes each piece on to its own
// stderr, and writes it to the pane's terminal too, for the human, framed
// by two invisible markers in one write(), which a tty keeps whole:
//
//	ESC ] 6973;ptybridge;R;<id> BEL   piece   ESC ] 6973;ptybridge;r;<id> BEL
//
// The Extractor drops the frames from stdout, whichever call's they are.
// The wrapper's StderrDone token, after the command, waits for ptysend to
// have put all the stderr on the terminal, before END and the prompt.

func frameOpen(id ID) string  { return marker("R", string(id)) }
func frameClose(id ID) string { return marker("r", string(id)) }

// MaxStderrPiece bounds the piece of stderr in one frame.
const MaxStderrPiece = 16 * 1024

// maxFrame bounds a frame as the Extractor may find it: the piece with
// its "\n"s turned into "\r\n", and the two markers. An opening marker
// without its end within that many bytes is not ptysend's: it is output.
const maxFrame = 2*MaxStderrPiece + 2*(len("\x1b]"+osc+";R;")+idLength+1)

// AppendStderrFrame appends the framed piece to dst, for one write().
func AppendStderrFrame(dst []byte, id ID, piece []byte) []byte {
	dst = append(dst, frameOpen(id)...)
	dst = append(dst, piece...)
	return append(dst, frameClose(id)...)
}

// StderrDone is the token the wrapper writes into the stderr fifo after the command.
func StderrDone(id ID) string { return marker("D", string(id)) }

// StderrStream reads the stderr fifo's bytes, chunk by chunk, and writes
// to Out what the command wrote: everything but the StderrDone token,
// which it notes (Done).
type StderrStream struct {
	out   io.Writer
	token []byte
	done  bool
	carry
	writer
}

func NewStderrStream(id ID, out io.Writer) *StderrStream {
	return &StderrStream{out: out, token: []byte(StderrDone(id))}
}

// Done reports whether the token, which follows all the command's stderr, has come.
func (s *StderrStream) Done() bool { return s.done }

// Write feeds the next chunk read from the fifo. What follows the token
// (a background job's stderr) is passed on too.
func (s *StderrStream) Write(p []byte) (int, error) {
	data := s.join(p)
	if !s.done {
		i := bytes.Index(data, s.token)
		if i < 0 {
			s.write(s.out, s.keep(data, heldPrefix(data, s.token)))
			return len(p), s.err
		}
		s.done = true
		s.write(s.out, data[:i])
		data = data[i+len(s.token):]
	}
	s.write(s.out, data)
	return len(p), s.err
}

// Flush passes on the bytes held back as a possible start of the token.
func (s *StderrStream) Flush() error {
	s.write(s.out, s.take())
	return s.err
}

var (
	stderrOpenPrefix  = []byte("\x1b]" + osc + ";R;")
	stderrClosePrefix = []byte("\x1b]" + osc + ";r;")
)

// frameFilter removes the frames of stderr from the stream after START,
// before the Extractor looks for END and "\r\n". Frames of any call are
// stderr: an earlier call's background job may still write.
type frameFilter struct {
	closer []byte // the end marker of the frame at hand
	carry         // a possible opening marker, or a frame without its end yet
	clean  []byte
}

// filter returns data without the frames; the result is valid until the
// next call.
func (f *frameFilter) filter(data []byte) []byte {
	data = f.join(data)
	f.clean = f.clean[:0]
	for i := bytes.Index(data, stderrOpenPrefix); i >= 0; i = bytes.Index(data, stderrOpenPrefix) {
		f.clean = append(f.clean, data[:i]...)
		rest := data[i+len(stderrOpenPrefix):]
		if len(rest) <= idLength { // the id and its BEL are still to come
			f.hold(data[i:])
			return f.clean
		}
		if !isID(rest[:idLength]) || rest[idLength] != '\a' { // not our marker: output
			f.clean = append(f.clean, stderrOpenPrefix...)
			data = rest
			continue
		}
		f.closer = append(append(append(f.closer[:0], stderrClosePrefix...), rest[:idLength]...), '\a')
		opener := len(stderrOpenPrefix) + idLength + 1
		body := data[i+opener:]
		j := bytes.Index(body, f.closer)
		switch {
		case j >= 0 && opener+j+len(f.closer) <= maxFrame:
			data = body[j+len(f.closer):] // a frame: dropped
		case j < 0 && len(data)-i < maxFrame:
			f.hold(data[i:]) // its end may still come
			return f.clean
		default: // no end within maxFrame: not ptysend's frame, but output
			f.clean = append(f.clean, data[i:i+opener]...)
			data = body
		}
	}
	data = f.keep(data, heldPrefix(data, stderrOpenPrefix))
	if len(f.clean) == 0 { // the common case: no frame, nothing copied
		return data
	}
	f.clean = append(f.clean, data...)
	return f.clean
}

// FrameSplitter splits the stream of one far call, whose stderr has no
// local fifo: the far wrapper prints it in frames, and the splitter, in
// front of the Extractor, gives it what lies outside them, and the sink
// what lies inside, with "\r\n" turned back into "\n".
type FrameSplitter struct {
	out, sink   io.Writer
	open, close []byte
	inFrame     bool
	carry       // a possible marker prefix, or a '\r' that may pair with '\n'
	writer
}

func NewFrameSplitter(id ID, out, sink io.Writer) *FrameSplitter {
	return &FrameSplitter{out: out, sink: sink, open: []byte(frameOpen(id)), close: []byte(frameClose(id))}
}

func (f *FrameSplitter) Write(p []byte) (int, error) {
	if f.err != nil {
		return len(p), f.err
	}
	data := f.join(p)
	for len(data) > 0 && f.err == nil {
		marker, held := f.open, heldPrefix
		if f.inFrame {
			marker, held = f.close, heldTail
		}
		i := bytes.Index(data, marker)
		if i < 0 {
			f.pass(f.keep(data, held(data, marker)))
			break
		}
		f.pass(data[:i])
		data, f.inFrame = data[i+len(marker):], !f.inFrame
	}
	return len(p), f.err
}

// Flush passes on what is held back at the end of the stream.
func (f *FrameSplitter) Flush() error {
	f.pass(f.take())
	return f.err
}

// pass passes b on: in a frame to the sink, outside to out.
func (f *FrameSplitter) pass(b []byte) {
	if f.inFrame {
		f.writeLF(f.sink, b)
	} else {
		f.write(f.out, b)
	}
}
