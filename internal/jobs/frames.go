package jobs

import (
	"bytes"
	"io"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// A job's stderr reaches its terminal in frames, as a command's does
// (markers.AppendStderrFrame): the supervisor reads the job's stderr from
// a pipe and writes each piece to the terminal between two invisible
// markers, in one write():
//
//	ESC ] 6973;ptybridge;R;<id> BEL   piece   ESC ] 6973;ptybridge;r;<id> BEL
//
// tmux swallows the markers and shows the piece, so the human sees the
// job's stderr where it belongs; the keeper takes the frames out of the
// stream and keeps their pieces apart.

// maxPiece bounds the piece of stderr in one frame.
const maxPiece = markers.MaxStderrPiece

// frameMarkers are the opening and closing markers of the job's frames.
func frameMarkers(id markers.ID) (open, close []byte) {
	empty := markers.AppendStderrFrame(nil, id, nil)
	i := bytes.IndexByte(empty, '\a') + 1
	return empty[:i], empty[i:]
}

// maxFrame bounds a frame as the terminal passes it on: the piece, each
// "\n" of which may have become "\r\n", and the markers. An opening marker
// without its end within that many bytes was not the supervisor's.
var maxFrame = 2*maxPiece + len(markers.AppendStderrFrame(nil, "0123456789abcdef", nil))

// frameSplitter splits the stream of a job's window: frames' pieces go to
// Err (with the terminal's "\r\n" turned back into "\n"), everything else
// to Out. An incomplete frame at the end of a chunk waits for the next.
type frameSplitter struct {
	open, close []byte
	Out, Err    io.Writer
	pending     []byte
}

func newFrameSplitter(id markers.ID, out, err io.Writer) *frameSplitter {
	open, close := frameMarkers(id)
	return &frameSplitter{open: open, close: close, Out: out, Err: err}
}

func (f *frameSplitter) Write(p []byte) (int, error) {
	data := p
	if len(f.pending) > 0 {
		data = append(f.pending, p...)
		f.pending = nil
	}
	for len(data) > 0 {
		i := bytes.Index(data, f.open)
		if i < 0 {
			keep := heldPrefix(data, f.open)
			f.pending = append(f.pending, data[len(data)-keep:]...)
			return len(p), write(f.Out, data[:len(data)-keep])
		}
		if err := write(f.Out, data[:i]); err != nil {
			return len(p), err
		}
		body := data[i+len(f.open):]
		j := bytes.Index(body, f.close)
		switch {
		case j >= 0 && len(f.open)+j+len(f.close) <= maxFrame:
			if err := write(f.Err, undoCRLF(body[:j])); err != nil {
				return len(p), err
			}
			data = body[j+len(f.close):]
		case j < 0 && len(data)-i < maxFrame:
			f.pending = append(f.pending, data[i:]...)
			return len(p), nil
		default: // no end within maxFrame: not a frame, but output
			if err := write(f.Out, f.open); err != nil {
				return len(p), err
			}
			data = body
		}
	}
	return len(p), nil
}

// Flush passes on what is held back as a possible frame: at the end of the
// stream it was output.
func (f *frameSplitter) Flush() error {
	held := f.pending
	f.pending = nil
	return write(f.Out, held)
}

func write(w io.Writer, b []byte) error {
	if len(b) == 0 {
		return nil
	}
	_, err := w.Write(b)
	return err
}

// undoCRLF turns the terminal's "\r\n" back into "\n". A frame is written
// in one piece, so a "\n" and the "\r" the terminal put before it never
// fall into different frames.
func undoCRLF(b []byte) []byte {
	if !bytes.Contains(b, []byte("\r\n")) {
		return b
	}
	return bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
}

// heldPrefix is the length of the longest suffix of data that is a proper
// prefix of marker.
func heldPrefix(data, marker []byte) int {
	for k := min(len(marker)-1, len(data)); k > 0; k-- {
		if bytes.Equal(data[len(data)-k:], marker[:k]) {
			return k
		}
	}
	return 0
}
