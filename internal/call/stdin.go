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

// forwardsStdin: a pipe or a file on stdin is data for the command, and so is an MCP call's text
// or a forced stdin (--stdin=forward hides its *os.File). /dev/null, a closed stdin (the runtime
// opens /dev/null there), a socket or a terminal is not: agents' tools give those, and the command
// reads the shared terminal instead, where the user answers its questions.
func forwardsStdin(r io.Reader) bool {
	if _, isFile := r.(*os.File); !isFile {
		return r != nil
	}
	mode, known := fileMode(r)
	return known && (mode.IsRegular() || mode&os.ModeNamedPipe != 0)
}

// ForwardsStdin says whether ptysend forwards r, its stdin, to the command by default.
func ForwardsStdin(r io.Reader) bool { return forwardsStdin(r) }

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
	if !forwardsStdin(in) {
		return nil, nil
	}
	type chunk struct {
		b   []byte
		err error
	}
	ch := make(chan chunk, 16)
	go func() {
		for {
			buf := make([]byte, 64<<10)
			n, err := in.Read(buf)
			ch <- chunk{buf[:n], err}
			if err != nil {
				return
			}
		}
	}()
	data := []byte{}
	idle := time.After(stdinIdle)
	for {
		select {
		case c := <-ch:
			data = append(data, c.b...)
			switch {
			case len(data) > maxFarStdin:
				return nil, &failure.Error{
					Msg:  fmt.Sprintf("the standard input is larger than %d MiB, the most ptysend forwards to a far shell (it is typed through the terminal)", maxFarStdin>>20),
					Hint: "copy the data to the far side another way (scp, a shared directory), or send it in smaller parts",
				}
			case c.err == io.EOF:
				return data, nil
			case c.err != nil:
				return nil, failure.From(c.err)
			case len(data) > 0:
				idle = nil // data flows: read to its end
			}
		case <-idle:
			return nil, nil
		}
	}
}
