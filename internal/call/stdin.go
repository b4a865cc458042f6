package call

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/ptybridge/ptybridge/internal/failure"
)

const (
	// maxFarStdin: the stdin forwarded to a far command travels typed, in base64, through the terminal.
	maxFarStdin = 16 << 20
	// stdinIdle: a stdin that is neither at its end nor sent a byte after
	// this long is an idle pipe, not data for the command.
	stdinIdle = 200 * time.Millisecond
)

// ForwardsStdin: a pipe or a file on stdin is data for the command, and so is an MCP call's text
// or a forced stdin (--stdin=forward hides its *os.File). /dev/null, a closed stdin (the runtime
// opens /dev/null there), a socket or a terminal is not: agents' tools give those, and the command
// reads the shared terminal instead, where the user answers its questions. ptysend forwards its
// own stdin to the command by default when this says so.
func ForwardsStdin(r io.Reader) bool {
	if _, isFile := r.(*os.File); !isFile {
		return r != nil
	}
	mode, known := fileMode(r)
	return known && (mode.IsRegular() || mode&os.ModeNamedPipe != 0)
}

// isPipe: r is a pipe, which may well be empty (an agent's tool gives one).
func isPipe(r io.Reader) bool { mode, _ := fileMode(r); return mode&os.ModeNamedPipe != 0 }

// fileMode is the mode of the file r is, if r is one that Stat knows (a nil *os.File is not).
func fileMode(r io.Reader) (os.FileMode, bool) {
	f, _ := r.(*os.File)
	fi, err := f.Stat()
	if err != nil {
		return 0, false
	}
	return fi.Mode(), true
}

// emptyStdinNote follows a failed command whose questions read end-of-file from an empty pipe.
const emptyStdinNote = "ptysend: note: the command's stdin was an empty pipe, so anything it asked read end-of-file; " +
	"to let the user answer in the shared terminal, run it with --stdin=terminal\n"

// readFarStdin reads the stdin to forward to a far command, whole: it is
// typed after the payload. A terminal, or a pipe that stays idle and
// open, forwards nothing: nil, where an empty stdin is empty.
func readFarStdin(in io.Reader) ([]byte, error) {
	if !ForwardsStdin(in) {
		return nil, nil
	}
	type chunk struct {
		b   []byte
		err error
	}
	first := make(chan chunk, 1)
	go func() {
		buf := make([]byte, 64<<10)
		n, err := io.ReadAtLeast(in, buf, 1)
		first <- chunk{buf[:n], err}
	}()
	var c chunk
	select {
	case c = <-first: // data flows: read to its end
	case <-time.After(stdinIdle):
		return nil, nil
	}
	data, err := c.b, c.err
	if err == nil {
		var rest []byte
		rest, err = io.ReadAll(io.LimitReader(in, maxFarStdin+1-int64(len(data))))
		data = append(data, rest...)
	}
	switch {
	case len(data) > maxFarStdin:
		return nil, &failure.Error{
			Msg:  fmt.Sprintf("the standard input is larger than %d MiB, the most ptysend forwards to a far shell (it is typed through the terminal)", maxFarStdin>>20),
			Hint: "copy the data to the far side another way (scp, a shared directory), or send it in smaller parts",
		}
	case err != nil && err != io.EOF:
		return nil, failure.From(err)
	}
	return data, nil
}
