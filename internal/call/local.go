package call

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/rundir"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// local runs the command in a shell of ours (same user and namespaces):
// ptysend writes the wrapper to the private runtime directory and types
// the short line that sources it; the command's stderr comes through a
// fifo (stderr.go), stdin through another, and the shell is watched in
// the process table.
type local struct {
	c        *Call
	shell    pane.Shell
	panePID  int
	paneID   string
	dir      string // the shell's directory, for a new shell if it ends
	id       markers.ID
	script   string
	inPath   string
	errs     *stderrCopy
	hooks    string // the shell integration to install with this call
	started  chan struct{}
	ctx      context.Context // ends with the call: the watches it made
	cancel   context.CancelFunc
	exit     <-chan struct{}
	back     chan struct{} // closed when the shell is back in the foreground
	watching bool
	questions
}

func newLocal(c *Call, st *pane.State) (*local, error) {
	l := &local{c: c, shell: *st.Shell, panePID: st.View.PanePID, paneID: st.View.PaneID, started: make(chan struct{}),
		back: make(chan struct{})}
	l.dir, _ = platform.Cwd(l.shell.PID)
	if st.Shell.NeedsHooks {
		l.hooks = markers.Integration(l.shell.Name, c.B.RuntimeDir)
	}
	id, err := NewCallID(c.B.RuntimeDir)
	if err != nil {
		return nil, failure.From(err)
	}
	l.id = id
	l.script = l.path(".sh")
	l.ctx, l.cancel = context.WithCancel(c.Ctx)
	job := markers.Job{ID: id, Command: c.Req.Command, StderrPath: l.path(".err"), AckPath: l.path(".ack")}
	l.errs, err = openStderrCopy(id, job.StderrPath, job.AckPath, platform.TTYOf(l.shell.PID), c.B.Exe, c.Req.Stderr, c.arrived)
	if err != nil {
		l.finish(nil)
		return nil, failure.From(fmt.Errorf("creating the stderr pipe: %w", err))
	}
	if forwardsStdin(c.Req.Stdin) {
		l.inPath = l.path(".in")
		if err := syscall.Mkfifo(l.inPath, 0o600); err != nil {
			l.finish(nil)
			return nil, failure.From(fmt.Errorf("creating the stdin pipe: %w", err))
		}
		job.StdinPath = l.inPath
	}
	if err := os.WriteFile(l.script, []byte(l.hooks+markers.Script(l.shell.Syntax, job)), 0o600); err != nil {
		l.finish(nil)
		return nil, failure.From(err)
	}
	l.questions = questions{c: c, errs: l.errs, started: l.started, panePID: l.panePID, paneID: l.paneID}
	return l, nil
}

func (l *local) path(ext string) string { return filepath.Join(l.c.B.RuntimeDir, string(l.id)+ext) }

// NewCallID is the id of a new call, which names its per-call files. It
// is claimed before any of them exist, so that no other call takes them
// for leftovers; and the files of calls that are gone (a ptysend killed
// with SIGKILL could not remove its own) are removed now. A running
// REPL's script is kept. See rundir/calls.go.
func NewCallID(dir string) (markers.ID, error) {
	id, err := markers.NewID()
	if err != nil {
		return "", err
	}
	// Without the lock (a file system without OFD locks) nobody can tell
	// a leftover either, and nothing is removed: the call goes on.
	rundir.Claim(dir, string(id))
	rundir.SweepLeftovers(dir, pane.ScriptsInUse(dir))
	return id, nil
}

// forwardsStdin: a terminal on stdin means nothing to forward (the command
// reads the shared terminal, like a typed one); anything else is data.
func forwardsStdin(r io.Reader) bool {
	if f, ok := r.(*os.File); ok {
		return f != nil && !term.IsTerminal(int(f.Fd()))
	}
	return r != nil
}

// feedStdin copies the agent's stdin into the pipe the command reads.
// Opening the pipe waits for the shell to open its end (finish gives up
// the wait when the command never ran).
func feedStdin(fifo string, in io.Reader) {
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		return
	}
	io.Copy(w, in)
	w.Close()
}

// start types the line that sources the wrapper, if the stream is still
// where the look saw it, and feeds the stream to the extractor.
func (l *local) start(done chan<- streamEnd) error {
	l.exit = platform.WatchExit(l.ctx, l.shell.PID) // a command can end the shell at once
	l.c.T.Runs(string(l.id), l.c.Req.Command)       // for the relay's history
	typed, err := l.c.T.TypeIf(markers.SourceLine(l.shell.Syntax, l.script) + "\r")
	if err != nil {
		return l.c.B.Closed(false)
	}
	if !typed {
		return ErrMoved
	}
	if l.hooks != "" {
		pane.RecordHooked(l.c.B, l.shell.PID)
	}
	l.errs.start()
	if l.inPath != "" {
		go feedStdin(l.inPath, l.c.Req.Stdin)
	}
	ext := markers.NewExtractor(l.id, l.c.out)
	go pump(l.c, ext, ext, nil, l.started, done)
	return nil
}

// pump feeds the stream, first what was read of it already, to w (the
// extractor, or a far call's stream in front of it) until END or a
// hang-up. started is closed once the START marker was seen.
func pump(c *Call, ext *markers.Extractor, w io.Writer, first []byte, started chan struct{}, done chan<- streamEnd) {
	buf := make([]byte, 64<<10)
	for {
		n, err := copy(buf, first), error(nil)
		first = first[n:]
		if n == 0 {
			n, err = c.T.Read(buf)
		}
		if n > 0 {
			wasStarted := ext.Started()
			if _, werr := w.Write(buf[:n]); werr != nil {
				done <- streamEnd{err: werr}
				return
			}
			if !wasStarted && ext.Started() && started != nil {
				close(started)
			}
			select {
			case c.arrived <- bytes.IndexByte(buf[:n], '\n') >= 0:
			default:
			}
			if ext.Done() {
				done <- streamEnd{status: ext.Status()}
				return
			}
		}
		if err != nil {
			done <- streamEnd{err: err}
			return
		}
	}
}

func (l *local) gone() <-chan struct{} { return l.exit }

// stopped is closed once the shell is back in the foreground of the
// terminal: an interrupted shell drops the rest of the line, END and all.
func (l *local) stopped() <-chan struct{} {
	if !l.watching {
		l.watching = true
		go func() {
			for {
				if fg, err := platform.ForegroundPID(l.panePID); err == nil && fg == l.shell.PID {
					close(l.back)
					return
				}
				select {
				case <-time.After(20 * time.Millisecond):
				case <-l.ctx.Done():
					return
				}
			}
		}()
	}
	return l.back
}

// shellEnded reports a command that ended the shell it ran in (exit,
// exec, a failure under set -e, a signal). When that was the pane's own
// shell, remain-on-exit kept the pane, and with it the human's session: a
// new shell is started there.
func (l *local) shellEnded() error {
	if l.shell.PID != l.panePID {
		return &failure.Error{
			Msg: fmt.Sprintf("the command ended the shell it ran in (%s, which the user had started inside the shared terminal); "+
				"the terminal is back in the user's previous shell", l.shell.Name),
			Hint: "do not run exit or exec through ptysend; your next command runs in the previous shell",
		}
	}
	if err := l.c.B.RespawnShell(l.paneID, l.dir); err != nil {
		if tmux.IsMissingSession(err) { // the human closed the bridge: that ended the shell
			return l.c.B.Closed(true)
		}
		return &failure.Error{
			Msg:  "the command ended the shell of the shared terminal, and starting a new one failed: " + err.Error(),
			Hint: "ask the user to restart ptybridge",
		}
	}
	return &failure.Error{
		Msg: fmt.Sprintf("the command ended the shell of the shared terminal (%s: exit, exec, a failure under set -e, or a signal); "+
			"a new shell was started in its place, so the old one's state (directory, variables, functions) is gone", l.shell.Name),
		Hint: "do not end the shell through ptysend; to stop at the first error, run the commands in a child shell, e.g. bash -ec '...'",
	}
}

// finish ends the stderr copy and removes the call's files. A feeder of
// stdin still waiting for a reader (the command never ran) gives up: a
// long-lived caller (the MCP server) keeps no goroutine behind.
func (l *local) finish(*streamEnd) {
	if l.inPath != "" {
		if f, err := platform.OpenNoWait(l.inPath); err == nil {
			f.Close()
		}
	}
	if l.errs != nil {
		l.errs.stop()
	}
	for _, ext := range []string{".sh", ".err", ".ack", ".in"} {
		os.Remove(l.path(ext))
	}
	if l.cancel != nil {
		l.cancel()
	}
}

// questions notices that a command waits for the human: its terminal's
// foreground program sleeps until the terminal has input. It says so on
// stderr once per question, with what the terminal asks, and takes the
// question and the echo of the answer out of the clean text of stdout:
// they are the terminal's conversation with the human, not output.
type questions struct {
	c            *Call
	errs         *stderrCopy
	started      chan struct{}
	panePID      int
	paneID       string
	asked, taken bool
	question     string
	captures     int
	waits        func() bool   // tests replace the looks
	asks         func() string // and the reading of the question
}

// maxCaptures bounds the tmux calls that read one question: the screen
// can lag behind the wait (the question still on its way to the
// terminal), and a wait can show no question at all (a read with no
// prompt).
const maxCaptures = 3

// waitsForHuman reports whether the command sleeps until the human
// answers the terminal.
//
// The pane's stream lags behind the shell, far behind while a large
// output passes through tmux: the shell can be back at its prompt long
// before the stream shows END. The wrapper's token in the stderr fifo
// says that the command is over, and the shell waits for ptysend to have
// seen it before it goes on, so a look counts only if the token had still
// not come once the look (and the capture of the question) was done.
func (q *questions) waitsForHuman() bool {
	select {
	case <-q.started:
	default:
		return false // the shell has yet to read the line: it is no question
	}
	if q.errs.commandOver() {
		return false
	}
	waits := q.lookWaits()
	asks := q.question
	if waits && asks == "" && q.captures < maxCaptures {
		q.captures++
		asks = q.lookAsks()
	}
	if !waits || q.errs.commandOver() {
		return false
	}
	q.question = asks
	if !q.asked {
		q.asked = true
		tellQuestion(q.c.Req.Stderr, q.note())
	}
	q.take()
	return true
}

func (q *questions) lookWaits() bool {
	if q.waits != nil {
		return q.waits()
	}
	return pane.WaitsForHuman(q.panePID)
}

func (q *questions) lookAsks() string {
	if q.asks != nil {
		return q.asks()
	}
	return pane.Asks(q.paneID)
}

// tellQuestion is the note of a question to the human.
func tellQuestion(w io.Writer, question string) {
	fmt.Fprintf(w, "ptysend: the terminal asks: %q\n"+
		"ptysend: the user must answer it in the ptybridge terminal: ask them to; "+
		"--timeout is paused while it waits (--max-time still applies)\n", question)
}

// note is what the note names as the question: the terminal's cursor
// line; when that showed nothing yet, the line the command's output shows
// last (stdout's pending line in clean text, else stderr's).
func (q *questions) note() string {
	if q.question != "" {
		return q.question
	}
	if q.c.clean != nil {
		if p := strings.TrimSpace(q.c.clean.Pending()); p != "" {
			return p
		}
	}
	if l := strings.TrimSpace(cleantext.String(q.errs.lastLine())); l != "" {
		return l
	}
	return "(input)"
}

// answered ends the question: a line break came.
func (q *questions) answered() { q.asked, q.question, q.captures, q.taken = false, "", 0, false }

// take takes the question out of the clean text of stdout, with the echo
// of the human's answer that follows it. It takes the pending line only
// once it is the question the terminal shows, so a note that was wrong
// never takes output; the stream may bring the question after the note
// (it lags), and a later look takes it then.
func (q *questions) take() {
	if q.c.clean == nil || q.taken {
		return
	}
	stderrLine := q.errs.lastLine()
	_, q.taken = q.c.clean.TakePendingIf(func(pending string) bool {
		return isQuestion(pending, stderrLine, q.question)
	})
}

// isQuestion reports whether the line the command's output shows last is
// the question the terminal asks (its cursor line, asks): the pending
// line of stdout, or, when that is empty, the unfinished last line of
// stderr. The cursor line of a question wider than the terminal is its
// last row only: the end of the line.
func isQuestion(stdoutLine, stderrLine, asks string) bool {
	line := strings.TrimSpace(stdoutLine)
	if line == "" {
		line = strings.TrimSpace(cleantext.String(stderrLine))
	}
	asks = strings.TrimSpace(asks)
	return asks != "" && line != "" && strings.HasSuffix(line, asks)
}
