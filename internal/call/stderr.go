package call

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// stderrCopy passes a local command's stderr on from the wrapper's fifo as it fills: to ptysend's
// stderr, and framed (never in stdout: markers.AppendStderrFrame) to the pane's terminal, where the
// human sees a question asked on stderr. Once the wrapper's StderrDone token came, all of it is
// there: a line in the ack fifo lets the wrapper print END; closing it (release, once END was seen
// and the terminal's answers taken from its input) lets the wrapper go on to the prompt.
type stderrCopy struct {
	errPath string
	fifo    *os.File // read-write: the wrapper's opens never wait, our reads wait for data
	ackMu   sync.Mutex
	ack     *os.File // read-write until closed: the wrapper waits for a line, then for that
	screen  framedTerminal
	agent   io.Writer
	stream  *markers.StderrStream
	exe     string // ptysend, to hand the fifo over to (handOver)
	buf     []byte
	arrived chan<- bool // true when a piece holds a line break
	over    atomic.Bool // the token came: the command is over
	lastMu  sync.Mutex
	last    []byte // the unfinished last line (lastLine)
	stopped chan struct{}
}

func openStderrCopy(id markers.ID, errPath, ackPath, ttyPath, exe string, agent io.Writer, arrived chan<- bool) (*stderrCopy, error) {
	s := &stderrCopy{errPath: errPath, agent: agent, exe: exe, arrived: arrived, stopped: make(chan struct{}),
		buf: make([]byte, 4096)}
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
	// The terminal at ttyPath ("" fails too), never our controlling terminal: failing to open it
	// only means the human sees no stderr.
	tty, _ := platform.OpenTTYToWrite(ttyPath)
	s.screen = framedTerminal{id: id, path: ttyPath, tty: tty}
	s.stream = markers.NewStderrStream(id, s)
	return s, nil
}

func (s *stderrCopy) run() {
	defer close(s.stopped)
	readAll(s.fifo, s.buf, s.take) // until stop's deadline, or the fifo closed
}

func readAll(r io.Reader, buf []byte, take func([]byte)) {
	for {
		n, err := r.Read(buf)
		if n > 0 {
			take(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (s *stderrCopy) take(b []byte) {
	s.stream.Write(b)
	if s.stream.Done() && s.over.CompareAndSwap(false, true) {
		s.ackMu.Lock()
		if s.ack != nil {
			s.ack.Write([]byte("\n")) // the wrapper goes on to END
		}
		s.ackMu.Unlock()
	}
	tellArrived(s.arrived, b)
}

// tellArrived tells arrived, if it is not told already, that output came; true: with a line break.
func tellArrived(arrived chan<- bool, b []byte) {
	select {
	case arrived <- bytes.IndexByte(b, '\n') >= 0:
	default:
	}
}

func (s *stderrCopy) Write(p []byte) (int, error) {
	s.keepLast(p)
	s.agent.Write(p)
	s.screen.show(p)
	return len(p), nil
}

// maxLastLine bounds what lastLine keeps: a question is short, and matched by its end.
const maxLastLine = 512

func (s *stderrCopy) keepLast(p []byte) {
	s.lastMu.Lock()
	defer s.lastMu.Unlock()
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		s.last, p = s.last[:0], p[i+1:]
	}
	s.last = append(s.last, p...)
	s.last = s.last[max(0, len(s.last)-maxLastLine):]
}

// lastLine is stderr after its last line break: a question asked there, as the cursor line shows it.
func (s *stderrCopy) lastLine() string {
	s.lastMu.Lock()
	defer s.lastMu.Unlock()
	return string(s.last)
}

// stop ends the copy once the call is over: what the fifo holds is passed on without waiting for
// more (after END, all of it is there). A copy stuck in a write (the human pressed Ctrl-S, or the
// agent does not read our stderr) is left behind: ptysend is about to exit.
func (s *stderrCopy) stop() {
	s.fifo.SetReadDeadline(time.Now())
	select {
	case <-s.stopped:
	case <-time.After(time.Second):
		return
	}
	s.fifo.SetReadDeadline(time.Time{})
	s.takeNow(s.fifo)
	s.stream.Flush()
	s.handOver()
	s.release()
	s.screen.close()
}

// release lets the wrapper, waiting after END, go on (or, before END, go on to END and past it).
func (s *stderrCopy) release() {
	s.ackMu.Lock()
	defer s.ackMu.Unlock()
	if s.ack != nil {
		s.ack.Close()
		s.ack = nil
	}
}

// takeNow takes what f holds now, and returns why it stopped.
func (s *stderrCopy) takeNow(f *os.File) error {
	for {
		n, err := platform.ReadNow(f, s.buf)
		if n <= 0 {
			return err
		}
		s.take(s.buf[:n])
	}
}

// handOver closes the fifo, or leaves it to a ptysend of its own (KeepShowingStderr) while
// background jobs of the command hold it: their stderr must go on reaching the terminal, as a typed
// job's would, and an unread fifo would stall them (or SIGPIPE kill them). A read that never waits
// tells: end of file means no writer is left once ours is closed.
func (s *stderrCopy) handOver() {
	fifo, err := platform.OpenNoWait(s.errPath)
	s.fifo.Close()
	if err != nil {
		return
	}
	defer fifo.Close()
	if !errors.Is(s.takeNow(fifo), platform.ErrWouldWait) {
		return
	}
	cmd := exec.Command(s.exe, "--late-stderr", string(s.screen.id), "--late-stderr-tty", s.screen.path)
	cmd.ExtraFiles = []*os.File{fifo}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // detached: it outlives us
	if cmd.Start() == nil {
		cmd.Process.Release()
	}
}

// KeepShowingStderr is the ptysend that handOver starts (--late-stderr):
// it shows on the terminal at ttyPath, framed, what background jobs of
// the finished call write to its stderr fifo, until the last closes it.
func KeepShowingStderr(id markers.ID, ttyPath string, fifo *os.File) {
	tty, _ := platform.OpenTTYToWrite(ttyPath)
	// A terminal that is gone only drops it: the jobs must not stall.
	ShowStderr(id, tty, fifo)
}

// ShowStderr shows on tty, framed, what r brings until it ends: a job's stderr (internal/jobs).
func ShowStderr(id markers.ID, tty *os.File, r io.Reader) {
	screen := framedTerminal{id: id, tty: tty}
	readAll(r, make([]byte, markers.MaxStderrPiece), screen.show)
}

// framedTerminal writes pieces of a call's stderr, framed, to the pane's terminal.
type framedTerminal struct {
	id    markers.ID
	path  string
	tty   *os.File // nil: not open, or gone
	frame []byte
}

// show writes p framed, in pieces each in one write(): a tty never splits a write() with another
// writer's (the command's stdout). When a program turned off the tty's "\n" to "\r\n" (sudo's
// use_pty keeps it raw), ptysend does it, or the human would see a staircase.
func (t *framedTerminal) show(p []byte) {
	for t.tty != nil && len(p) > 0 {
		piece := p[:min(len(p), markers.MaxStderrPiece)]
		p = p[len(piece):]
		if !platform.TranslatesNewlines(t.tty) {
			piece = bytes.ReplaceAll(piece, []byte("\n"), []byte("\r\n"))
		}
		t.frame = markers.AppendStderrFrame(t.frame[:0], t.id, piece)
		if _, err := t.tty.Write(t.frame); err != nil {
			t.close()
		}
	}
}

func (t *framedTerminal) close() {
	if t.tty != nil {
		t.tty.Close()
		t.tty = nil
	}
}

// lockedWriter serializes ptysend's stderr: the command's stderr and our notes, two goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// lockedPair serializes the command's stderr and ptysend's notes: one lock when they share a
// writer (the CLI's stderr), one each when they are apart (the MCP server's captures).
func lockedPair(stderr, notes io.Writer) (io.Writer, io.Writer) {
	s := &lockedWriter{w: stderr}
	if notes == nil || notes == stderr {
		return s, s
	}
	return s, &lockedWriter{w: notes}
}
