package session

import (
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// stderrCopy passes the command's stderr on while the command runs: the
// wrapper sends it to a fifo, which this reads as it fills. Each piece
// goes to ptysend's stderr, for the agent, and to the pane's terminal,
// framed so that it never reaches stdout (see markers.AppendStderrFrame),
// for the human, who sees it as they would see a typed command's: a
// question on stderr ("Continue? [y/N] ") shows while it waits for the
// answer. When the wrapper's StderrDone token arrives, everything before
// it is on the terminal: closing the ack fifo lets the wrapper print END.
type stderrCopy struct {
	id     markers.ID
	fifo   *os.File // read-write: the wrapper's opens never wait, our reads wait for data
	ack    *os.File // read-write until closed: the wrapper waits for that
	tty    *os.File // the pane's terminal, or nil
	agent  io.Writer
	stream *markers.StderrStream
	frame  []byte

	arrived  chan<- bool // true when a piece holds a line break
	stopped  chan struct{}
	stopOnce sync.Once
}

// openStderrCopy makes the fifos at errPath and ackPath and opens them,
// and the terminal at ttyPath (a terminal that cannot be opened only
// means the human does not see the stderr). arrived hears of each piece.
func openStderrCopy(id markers.ID, errPath, ackPath, ttyPath string, agent io.Writer, arrived chan<- bool) (*stderrCopy, error) {
	s := &stderrCopy{id: id, agent: agent, arrived: arrived, stopped: make(chan struct{})}
	for _, p := range []string{errPath, ackPath} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			return nil, err
		}
	}
	var err error
	if s.fifo, err = os.OpenFile(errPath, os.O_RDWR, 0); err != nil {
		return nil, err
	}
	if s.ack, err = os.OpenFile(ackPath, os.O_RDWR, 0); err != nil {
		s.fifo.Close()
		return nil, err
	}
	if ttyPath != "" {
		s.tty, _ = os.OpenFile(ttyPath, os.O_WRONLY|unix.O_NOCTTY, 0)
	}
	s.stream = markers.NewStderrStream(id, s)
	return s, nil
}

// start copies until stop.
func (s *stderrCopy) start() { go s.run() }

func (s *stderrCopy) run() {
	defer close(s.stopped)
	buf := make([]byte, markers.MaxStderrPiece)
	for {
		n, err := s.fifo.Read(buf)
		if n > 0 {
			s.take(buf[:n])
		}
		if err != nil { // stop's deadline, or the fifo closed
			return
		}
	}
}

// take handles one read of the fifo.
func (s *stderrCopy) take(b []byte) {
	s.stream.Write(b)
	if s.stream.Done() && s.ack != nil {
		s.ack.Close() // the wrapper goes on to END
		s.ack = nil
	}
	line := false
	for _, c := range b {
		if c == '\n' {
			line = true
			break
		}
	}
	select {
	case s.arrived <- line:
	default:
	}
}

// Write passes a piece of the command's stderr on (the StderrStream calls
// it): the agent gets it exact, the terminal framed.
func (s *stderrCopy) Write(p []byte) (int, error) {
	s.agent.Write(p)
	s.show(p)
	return len(p), nil
}

// show writes p to the pane's terminal, framed, in pieces of at most
// markers.MaxStderrPiece, each in one write(): a tty never splits one
// write() with another writer's (the command's stdout). The tty's output
// processing turns "\n" into "\r\n", as for a typed command's stderr;
// when a program has turned it off (sudo's use_pty keeps the terminal raw
// while its command runs), ptysend does it, or the human would see the
// lines as a staircase.
func (s *stderrCopy) show(p []byte) {
	if s.tty == nil {
		return
	}
	for len(p) > 0 {
		piece := p[:min(len(p), markers.MaxStderrPiece)]
		p = p[len(piece):]
		if !translatesNewlines(s.tty) {
			piece = crlf(piece)
		}
		s.frame = markers.AppendStderrFrame(s.frame[:0], s.id, piece)
		if _, err := s.tty.Write(s.frame); err != nil {
			s.tty.Close()
			s.tty = nil
			return
		}
	}
}

func translatesNewlines(tty *os.File) bool {
	t, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	return err != nil || t.Oflag&unix.OPOST != 0 && t.Oflag&unix.ONLCR != 0
}

// crlf is b with each "\n" preceded by "\r".
func crlf(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/8)
	for _, c := range b {
		if c == '\n' {
			out = append(out, '\r')
		}
		out = append(out, c)
	}
	return out
}

// stop ends the copy once the call is over (END, an interrupt, the shell
// gone): what the fifo still holds is passed on, without waiting for
// more; the command's own stderr is all there after END. It is safe to
// call more than once.
func (s *stderrCopy) stop() {
	s.stopOnce.Do(func() {
		s.fifo.SetReadDeadline(time.Now())
		<-s.stopped
		s.fifo.SetReadDeadline(time.Time{})
		s.drain()
		s.stream.Flush()
		s.fifo.Close()
		if s.ack != nil {
			s.ack.Close()
		}
		if s.tty != nil {
			s.tty.Close()
		}
	})
}

// drain reads what the fifo holds now, never waiting.
func (s *stderrCopy) drain() {
	raw, err := s.fifo.SyscallConn()
	if err != nil {
		return
	}
	buf := make([]byte, markers.MaxStderrPiece)
	for {
		n := 0
		raw.Read(func(fd uintptr) bool {
			n, _ = unix.Read(int(fd), buf)
			return true // one try: EAGAIN means empty
		})
		if n <= 0 {
			return
		}
		s.take(buf[:n])
	}
}

// lockedWriter serializes the writes of ptysend's stderr: the command's
// stderr and ptysend's own notes come from two goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
