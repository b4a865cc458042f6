// Package relay is the process that tmux's pipe-pane connects to a pane,
// both ways, and the protocol its clients speak (wire.go). The shared
// pane's relay and each job window's read the pane's raw output (lossless
// whatever the scrollback), follow its markers, keep what ran there in
// bounded memory (history.go, job.go), type for the client whose turn it is
// (turns.go), and answer queries (queries.go) while a call holds the pane.
// Whether the agent may type is internal/pane's business.
package relay

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// Version is the protocol's: a relay of another version (an older
// ptybridge's) is replaced by the next call, as a dead one is.
const Version = 12

// Config is what a relay serves.
type Config struct {
	Socket  string
	PaneID  string
	PanePID int
	Job     *JobConfig // a job window's relay's job; nil for the shared pane's
}

// writeTimeout drops a client that stops reading, so that one stuck
// caller cannot stall the pane (tmux buffers what the pipe does not take).
const writeTimeout = 30 * time.Second

type server struct {
	cfg      Config
	lastLine []byte // the stream after its last line break, for the cursor's column
	// promptLine is lastLine when the shell last waited at its prompt with nothing typed: its
	// prompt as drawn, and where it left the cursor (promptShownEmpty).
	promptLine []byte
	in         *platform.PipeReader // the pane's output
	keys       io.Writer            // the pane's input
	typing     sync.Mutex

	mu       sync.Mutex
	moved    *sync.Cond // broadcast when the stream moves, the job changes or the pane goes
	tracker  markers.Tracker
	streamed int64
	instance string
	turns    turns
	history  *history // the shared pane's
	job      *job     // a job window's
	gone     bool
	paneGone chan struct{} // closed once the pane's stream ended
	scratch  []byte
	ctx      context.Context // ends with the pane
}

// Run serves the pane on the process's standard input (its output) and
// standard output (its input: nothing else may ever be written there).
func Run(cfg Config) error { return Serve(cfg, os.Stdin, os.Stdout) }

// Serve serves the pane whose output pipe in brings, typing to keys, until in ends.
func Serve(cfg Config, in *os.File, keys io.Writer) error {
	pipe, err := platform.NewPipeReader(in)
	if err != nil {
		return err
	}
	ln, err := listen(cfg)
	if err != nil {
		if cfg.Job != nil {
			tellReady(cfg.Job.Ready, "error the job's relay could not listen: "+err.Error())
			io.Copy(io.Discard, pipe) // keep the window's pipe drained
		}
		return err
	}
	mine, _ := os.Stat(cfg.Socket)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &server{cfg: cfg, in: pipe, keys: keys, instance: newInstance(), ctx: ctx, paneGone: make(chan struct{})}
	s.moved = sync.NewCond(&s.mu)
	if cfg.Job != nil {
		s.job = newJob(s, *cfg.Job)
		s.tracker.Sink = s.job
	} else {
		s.history = newHistory(s.shellDir, func() string { return s.turns.holder.call })
		s.tracker.Sink = s.history
		go s.closePaneWhenTheHumanExits()
	}
	go s.acceptFromUs(ln)
	s.readPane()
	ln.Close()
	s.mu.Lock()
	if s.job != nil && s.job.Spare {
		s.job.forgetSpare()
	}
	// Unless a newer relay's replaced it; cfg has a renamed job socket's name.
	// ext4 hands a freed inode to the next file: the times tell them apart.
	if now, err := os.Stat(s.cfg.Socket); err == nil && mine != nil && os.SameFile(mine, now) && mine.ModTime().Equal(now.ModTime()) {
		os.Remove(s.cfg.Socket)
	}
	s.gone = true
	s.turns.closeAll()
	s.moved.Broadcast()
	s.mu.Unlock()
	close(s.paneGone)
	if s.job != nil {
		s.job.afterPaneGone()
	}
	return nil
}

// listen listens on the relay's socket. A stale socket (its relay died)
// is replaced, a live one never; a job window's relay takes the name of
// an ended job's, whose window is closing (ptysend --job checked).
func listen(cfg Config) (*platform.UnixListener, error) {
	if cfg.Job == nil && Alive(cfg.Socket) {
		return nil, fmt.Errorf("a relay is already listening on %s", cfg.Socket)
	}
	os.Remove(cfg.Socket)
	ln, err := platform.ListenUnix(cfg.Socket)
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	return ln, nil
}

// newInstance names a relay process: a restarted relay counts its
// offsets from zero again, so offsets of different instances never match.
func newInstance() string {
	return strconv.FormatInt(int64(os.Getpid()), 36) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
}

func (s *server) readPane() {
	buf := make([]byte, 64<<10)
	for {
		n, err := s.in.Read(buf)
		if n > 0 {
			s.mu.Lock()
			s.follow(buf[:n])
			s.streamed += int64(n)
			s.turns.forward(s, buf[:n])
			s.moved.Broadcast()
			s.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// follow reads p, the stream's next bytes, into what the relay knows of the pane.
func (s *server) follow(p []byte) {
	s.tracker.Write(p)
	s.keepLastLine(p)
	if s.tracker.Snapshot().State == markers.StatePrompt {
		s.promptLine = append(s.promptLine[:0], s.lastLine...)
	}
}

// maxLastLine bounds the last line kept for its cursor column: a prompt is shorter.
const maxLastLine = 4 << 10

// keepLastLine keeps the stream's bytes after its last line break.
func (s *server) keepLastLine(p []byte) {
	if i := bytes.LastIndexByte(p, '\n'); i >= 0 {
		s.lastLine, p = s.lastLine[:0], p[i+1:]
	}
	s.lastLine = append(s.lastLine, p[max(0, len(p)-maxLastLine):]...)
	if over := len(s.lastLine) - maxLastLine; over > 0 {
		s.lastLine = append(s.lastLine[:0], s.lastLine[over:]...)
	}
}

// promptShownEmpty: what the events call typed (output at the prompt) left the last line, drawn
// as line with the cursor at col, as the prompt was with nothing typed, the cursor where it was:
// zsh drew its prompt again (a resize), or the human erased what they had typed (Ctrl-U).
// Spacing aside: a right prompt moves with the terminal's width. A line the human typed that
// wrapped, or anything the line cannot show, reads as typed.
func (s *server) promptShownEmpty(line string, col int) bool {
	if len(s.promptLine) == 0 {
		return false
	}
	prompt, promptCol := drawnLine(s.promptLine)
	return col == promptCol && strings.TrimSpace(prompt) != "" && slices.Equal(strings.Fields(line), strings.Fields(prompt))
}

// drawnLine is the text a terminal shows for a line's bytes, and the column where it leaves the
// cursor, counted from 0 (a prompt's colours and redraws included).
func drawnLine(b []byte) (string, int) {
	w := cleantext.NewWriter(io.Discard)
	w.Write(b)
	return w.Line()
}

// catchUp reads what waits in the pane's pipe before an answer is given,
// so that it describes the stream up to that moment (a prompt's event
// already on its way must count), the bytes readPane took but has not
// applied yet included. Call with s.mu held.
func (s *server) catchUp() {
	target := s.in.Reached()
	for s.streamed < target && !s.gone {
		s.moved.Wait()
	}
}

func (s *server) typeKeys(keys []byte) error {
	s.typing.Lock()
	defer s.typing.Unlock()
	_, err := s.keys.Write(keys)
	return err
}

// serve answers a client: its first message says what it wants.
func (s *server) serve(c *os.File) {
	defer c.Close()
	r := bufio.NewReaderSize(c, maxLine)
	m, err := readMessage(r)
	switch {
	case err != nil:
	case m.verb() == "turn":
		s.serveTurn(c, r, m.text(1))
	case s.history != nil:
		c.SetDeadline(time.Now().Add(writeTimeout))
		c.Write(s.answer(m))
	default:
		s.job.serve(c, r, m)
	}
}

// acceptFromUs serves our own user's connections until ln closes, and hangs
// up on others: a second line of defence behind the private runtime dir.
func (s *server) acceptFromUs(ln *platform.UnixListener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if uid, err := platform.PeerUID(c); err != nil || uid != os.Geteuid() {
			c.Close()
			continue
		}
		go s.serve(c)
	}
}

// The shared pane has remain-on-exit on, so that an agent's command that
// ends the shell (exit, exec, set -e) cannot end the human's session
// (ptysend starts a new shell). A shell that ends while no call holds the
// pane was ended by the human: the pane is closed, as without the option.
func (s *server) closePaneWhenTheHumanExits() {
	// When the whole pane goes (the session ended, the server was killed),
	// its pipe closes within paneGoneGrace: nothing is left to close.
	if !s.waitForExit() || closedWithin(s.ctx.Done(), paneGoneGrace) {
		return
	}
	s.mu.Lock()
	busy := s.turns.current != nil
	s.mu.Unlock()
	if !busy {
		tmux.Run("kill-pane", "-t", s.cfg.PaneID)
	}
}

const paneGoneGrace = 100 * time.Millisecond

// waitForExit waits for the pane's process to exit; false if it cannot watch, or the pane goes first.
func (s *server) waitForExit() bool {
	exited := platform.WatchExit(s.ctx, s.cfg.PanePID)
	if exited == nil {
		return false
	}
	select {
	case <-exited:
		return true
	case <-s.ctx.Done():
		return false
	}
}

func closedWithin(ch <-chan struct{}, d time.Duration) bool {
	// Asked first: with d = 0 both cases below are ready, and select picks one at random.
	select {
	case <-ch:
		return true
	default:
	}
	select {
	case <-ch:
		return true
	case <-time.After(d):
		return false
	}
}

// shellDir is a shell's working directory, only for a process on the
// pane's own terminal (a pid reported by a shell behind ssh is not ours).
func (s *server) shellDir(pid int) string {
	if pid <= 0 || !platform.SameTerminal(pid, s.cfg.PanePID) {
		return ""
	}
	dir, _ := platform.Cwd(pid)
	return dir
}

func Alive(path string) bool {
	c, err := platform.DialUnix(path)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// WaitFor waits for a relay that tmux is starting. It polls, but only
// while a bridge or a job window is being set up, never on a call's path.
func WaitFor(path string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for !Alive(path) {
		if time.Now().After(deadline) {
			return &failure.Error{
				Msg:  "the output relay of the bridge did not start (socket " + path + ")",
				Hint: "check that " + os.Args[0] + " can run from inside tmux, then run ptybridge again",
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}
