package session

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/limits"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/repl"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// Request is one ptysend call.
type Request struct {
	Bridge  bridge.Bridge
	Command string
	// Timeout is the no-output timeout; MaxTime the overall one. Zero
	// disables either.
	Timeout, MaxTime time.Duration
	// Stdin is forwarded to the command, unless it is a terminal (or nil):
	// then the command reads the shared terminal.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Cancel, when closed, stops the call as a stop signal does: the
	// command is interrupted with the two-phase kill, and a call still
	// waiting for its turn types nothing.
	Cancel <-chan struct{}
	// Raw passes the command's terminal output on byte for byte; else it
	// is cleaned into the text a pipe would have carried (cleantext).
	Raw     bool
	Waiting // --wait-free and --confirm (free.go)
}

// send makes one attempt at running the request's command in the shared
// pane (see Send) and returns its exit status, or an *Error.
func send(req Request) (int, error) {
	start := time.Now()
	req.Stderr = &lockedWriter{w: req.Stderr}
	var clean *cleantext.Writer
	if !req.Raw {
		clean = cleantext.NewWriter(req.Stdout)
		defer clean.Close()
		req.Stdout = clean
	}
	rc, err := req.Bridge.TurnUnlessCancelled(req.MaxTime, req.Stderr, start, req.Cancel)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	target, err := pane.Locate(rc.PanePID)
	if err != nil {
		return 0, repl.BusyError(req.Bridge, rc.PanePID, err)
	}
	if target.Far {
		if err := repl.InTheWay(req.Bridge, rc.PanePID); err != nil {
			return 0, err
		}
		return sendFar(req, rc, target, start)
	}
	shellPID, shell := target.PID, target.Shell
	name := platform.Name(shellPID)
	needHooks, err := pane.AwaitFreePrompt(rc, req.Bridge, shellPID, name)
	if err != nil {
		if _, ok := err.(*failure.Error); !ok {
			err = req.Bridge.Closed(false)
		}
		return 0, err
	}
	if err := req.approve(rc); err != nil {
		return 0, err
	}
	c := &call{req: req, rc: rc, shell: shell, shellPID: shellPID, shellName: name, start: start, clean: clean,
		questions: paneQuestions{pid: rc.PanePID, id: rc.PaneID}}
	c.shellDir, _ = platform.Cwd(shellPID)
	if needHooks {
		c.hooks = markers.Integration(name, req.Bridge.RuntimeDir)
	}
	defer c.cleanup()
	if err := c.prepare(); err != nil {
		return 0, failure.From(err)
	}
	// Watch the shell before typing: a command can end it at once.
	watch, stopWatching := context.WithCancel(context.Background())
	defer stopWatching()
	c.shellExit = platform.WatchExit(watch, shellPID)
	rc.Job(c.id, req.Command) // for the relay's history
	if err := pane.TypeSourceLine(c.rc, c.req.Bridge, c.shell, c.script); err != nil {
		return 0, failure.From(err)
	}
	if c.hooks != "" {
		pane.RecordHooked(req.Bridge, shellPID)
	}
	return c.wait()
}

// call is one command's run in the pane.
type call struct {
	req      Request
	rc       *relay.Client
	shellPID int
	start    time.Time
	id       markers.ID
	script   string
	errPath  string
	ackPath  string
	inPath   string
	out      *gate
	errs     *stderrCopy
	hooks    string // shell integration to install with this call

	shell     markers.Shell // the shell typed into: its syntax, name, directory
	shellName string
	shellDir  string
	shellExit <-chan struct{}

	// arrived hears of output, stdout or stderr: true when it holds a
	// line break. started is closed once the START marker was seen.
	arrived chan bool
	started chan struct{}
	// questions is what a look at the pane reads. asked is set once the
	// human was said to have a question to answer, until a line break
	// ends that wait; question is what the terminal's cursor line showed
	// (captures: how often it was read), and taken says that the question
	// was taken out of stdout.
	questions questions
	asked     bool
	question  string
	captures  int
	taken     bool
	// clean is the clean-text writer of stdout (nil with --raw): the
	// question a command waits on, and the echo of the answer, are taken
	// out of it into the note.
	clean *cleantext.Writer
}

func (c *call) path(ext string) string {
	return filepath.Join(c.req.Bridge.RuntimeDir, string(c.id)+ext)
}

// prepare writes the wrapper script and the per-command files.
func (c *call) prepare() error {
	id, err := newCallID(c.req.Bridge)
	if err != nil {
		return err
	}
	c.id = id
	c.script, c.errPath, c.ackPath = c.path(".sh"), c.path(".err"), c.path(".ack")
	c.arrived, c.started = make(chan bool, 1), make(chan struct{})
	c.errs, err = openStderrCopy(id, c.errPath, c.ackPath, platform.TTYOf(c.shellPID), c.req.Bridge.Exe, c.req.Stderr, c.arrived)
	if err != nil {
		return fmt.Errorf("creating the stderr pipe: %w", err)
	}
	c.errs.start()
	job := markers.Job{ID: id, Command: c.req.Command, StderrPath: c.errPath, AckPath: c.ackPath}
	if forwardsStdin(c.req.Stdin) {
		c.inPath = c.path(".in")
		if err := syscall.Mkfifo(c.inPath, 0o600); err != nil {
			return fmt.Errorf("creating the stdin pipe: %w", err)
		}
		job.StdinPath = c.inPath
		go feedStdin(c.inPath, c.req.Stdin)
	}
	return os.WriteFile(c.script, []byte(c.hooks+markers.Script(c.shell, job)), 0o600)
}

// forwardsStdin: a terminal on stdin means nothing to forward (the command
// reads the shared terminal, like a typed one); anything else is data.
func forwardsStdin(r io.Reader) bool {
	if f, ok := r.(*os.File); ok {
		return f != nil && !term.IsTerminal(int(f.Fd()))
	}
	return r != nil
}

// feedStdin copies our stdin into the pipe the command reads. Opening the
// pipe waits for the shell to open its end; a command that never reads
// just leaves this goroutine behind when ptysend exits.
func feedStdin(fifo string, in io.Reader) {
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		return
	}
	io.Copy(w, in)
	w.Close()
}

func (c *call) cleanup() {
	if c.inPath != "" {
		// A feeder still waiting for a reader (the command never ran) gives
		// up: a long-lived caller (ptysend --mcp) keeps no goroutine behind.
		if f, err := os.OpenFile(c.inPath, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}
	if c.errs != nil {
		c.errs.stop()
	}
	for _, p := range []string{c.script, c.errPath, c.ackPath, c.inPath} {
		if p != "" {
			os.Remove(p)
		}
	}
}

// Interrupt keys, typed through the relay into the terminal's input, where
// the line discipline turns them into SIGINT and SIGQUIT for the command,
// whatever tmux shows (copy mode would take them from send-keys).
const (
	ctrlC         = "\x03"
	ctrlBackslash = "\x1c"
)

func (c *call) sendKey(key string) {
	c.rc.Type(key)
}

// streamResult is how the relay stream ended.
type streamResult struct {
	err error // nil: the END marker was seen
}

// wait streams the output until the END marker, a timeout or a hang-up.
func (c *call) wait() (int, error) {
	c.out = &gate{w: c.req.Stdout}
	ext := markers.NewExtractor(c.id, c.out)
	done := make(chan streamResult, 1)
	go c.pump(ext, done)

	noOutput := limits.NewTimer(c.req.Timeout)
	overall := limits.NewTimer(limits.Remaining(c.start, c.req.MaxTime))
	look := newLookTimer()
	defer look.stop()
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)

	for {
		select {
		case <-c.shellExit:
			select {
			case r := <-done: // it ended after its END marker: no matter
				return c.finish(ext, r)
			default:
			}
			return c.shellEnded()
		case lineBreak := <-c.arrived:
			noOutput.Reset(c.req.Timeout)
			look.afterOutput()
			if lineBreak {
				c.answered() // a line ends a question: Enter, or the program's answer
			}
		case r := <-done:
			return c.finish(ext, r)
		case <-look.C():
			c.waitsForHuman()
			look.later()
		case <-noOutput.C():
			// Decided now, however short the timeout: a command waiting
			// for the human is not hung.
			if c.waitsForHuman() {
				noOutput.Reset(c.req.Timeout)
				continue
			}
			return c.interrupt(done, fmt.Sprintf("no output for %v (--timeout)", c.req.Timeout),
				"if the command is slow but quiet, rerun it with a larger --timeout, e.g. --timeout 60")
		case <-overall.C():
			return c.interrupt(done, fmt.Sprintf("the command ran longer than %v (--max-time)", c.req.MaxTime),
				"if it needs longer, rerun it with a larger --max-time, or run it in the background and poll")
		case s := <-signals:
			status, _ := c.interrupt(done, "ptysend was stopped by "+s.String(), "")
			if status == failure.ExitTimeout {
				status = 128 + int(s.(syscall.Signal))
			}
			return status, &failure.Error{Code: status, Msg: "stopped by " + s.String() + "; the command was interrupted"}
		case <-c.req.Cancel: // as a Ctrl-C at the caller's end
			status, _ := c.interrupt(done, "the call was cancelled", "")
			if status == failure.ExitTimeout {
				status = 128 + int(syscall.SIGINT)
			}
			return status, &failure.Error{Code: status, Msg: "the call was cancelled; the command was interrupted"}
		}
	}
}

// shellEnded reports a command that ended the shell it ran in (exit,
// exec, a failure under set -e, a signal). When that was the pane's own
// shell, remain-on-exit kept the pane, and with it the human's session: a
// new shell is started there.
func (c *call) shellEnded() (int, error) {
	c.drainOutput()
	c.errs.stop()
	if c.shellPID != c.rc.PanePID {
		return 0, &failure.Error{
			Msg: fmt.Sprintf("the command ended the shell it ran in (%s, which the user had started inside the shared terminal); "+
				"the terminal is back in the user's previous shell", c.shellName),
			Hint: "do not run exit or exec through ptysend; your next command runs in the previous shell",
		}
	}
	if err := c.req.Bridge.RespawnShell(c.rc.PaneID, c.shellDir); err != nil {
		if tmux.IsMissingSession(err) { // the human closed the bridge: that ended the shell
			return 0, c.req.Bridge.Closed(true)
		}
		return 0, &failure.Error{
			Msg:  "the command ended the shell of the shared terminal, and starting a new one failed: " + err.Error(),
			Hint: "ask the user to restart ptybridge",
		}
	}
	return 0, &failure.Error{
		Msg: fmt.Sprintf("the command ended the shell of the shared terminal (%s: exit, exec, a failure under set -e, or a signal); "+
			"a new shell was started in its place, so the old one's state (directory, variables, functions) is gone", c.shellName),
		Hint: "do not end the shell through ptysend; to stop at the first error, run the commands in a child shell, e.g. bash -ec '...'",
	}
}

// drainOutput lets the output the shell wrote before it ended arrive: it
// waits until the stream has been quiet for a moment (bounded).
func (c *call) drainOutput() {
	limit := time.After(200 * time.Millisecond)
	for {
		select {
		case <-c.arrived:
		case <-time.After(20 * time.Millisecond):
			return
		case <-limit:
			return
		}
	}
}

// pump feeds the relay stream into the extractor until END or a hang-up.
func (c *call) pump(ext *markers.Extractor, done chan<- streamResult) {
	buf := make([]byte, 64*1024)
	for {
		n, err := c.rc.Read(buf)
		if n > 0 {
			wasStarted := ext.Started()
			if _, werr := ext.Write(buf[:n]); werr != nil {
				done <- streamResult{err: werr}
				return
			}
			if !wasStarted && ext.Started() {
				close(c.started)
			}
			select {
			case c.arrived <- bytes.IndexByte(buf[:n], '\n') >= 0:
			default:
			}
			if ext.Done() {
				done <- streamResult{}
				return
			}
		}
		if err != nil {
			done <- streamResult{err: io.ErrUnexpectedEOF}
			return
		}
	}
}

// finish reports the end of the stream: the command's status, with its
// stderr, or why the stream broke.
func (c *call) finish(ext *markers.Extractor, r streamResult) (int, error) {
	c.errs.stop()
	if r.err == io.ErrUnexpectedEOF {
		return 0, c.req.Bridge.Closed(true)
	}
	if r.err != nil {
		return 0, &failure.Error{Msg: "writing the output: " + r.err.Error(), Hint: "make sure ptysend's standard output can be written"}
	}
	return ext.Status(), nil
}

// waitsForHuman reports whether the command sleeps until the human
// answers the terminal (only /proc is read), and says so on stderr, once
// per question: what the terminal asks and who answers it.
//
// The pane's stream lags behind the shell, far behind while a large
// output passes through tmux: the shell can be back at its prompt (a line
// editor waiting for keys) long before the stream shows END. The
// wrapper's token in the stderr fifo says that the command is over, and
// the shell waits for ptysend to have seen it before it goes on, so a
// look counts only if the token had still not come once the look (and
// the capture of the question) was done: then the shell was still inside
// the wrapper while it was looked at. Asked before the look, a look that
// came later could find the shell at its next prompt, and its cursor line
// read as a question.
func (c *call) waitsForHuman() bool {
	select {
	case <-c.started:
	default:
		return false // the shell has yet to read the line: it is no question
	}
	if c.errs.commandOver() {
		return false // the shell at its next prompt, before the stream shows END
	}
	waits := c.questions.waitsForHuman()
	asks := c.question
	if waits && asks == "" && c.captures < maxCaptures {
		c.captures++
		asks = c.questions.asks()
	}
	if !waits || c.errs.commandOver() {
		return false
	}
	c.question = asks
	if !c.asked {
		c.asked = true
		fmt.Fprintf(c.req.Stderr, "ptysend: the terminal asks: %q\n"+
			"ptysend: the user must answer it in the ptybridge terminal: ask them to; "+
			"--timeout is paused while it waits (--max-time still applies)\n", c.noteQuestion())
	}
	c.takeQuestion()
	return true
}

// maxCaptures bounds the tmux calls that read one question: the screen
// can lag behind the wait (the question still on its way to the
// terminal, the stderr copy's or the command's own), and a wait can show
// no question at all (a read with no prompt).
const maxCaptures = 3

// noteQuestion is what the note names as the question: the terminal's
// cursor line; when that showed nothing yet, the line the command's
// output shows last (stdout's pending line in clean text, else stderr's).
func (c *call) noteQuestion() string {
	if c.question != "" {
		return c.question
	}
	if c.clean != nil {
		if p := strings.TrimSpace(c.clean.Pending()); p != "" {
			return p
		}
	}
	if l := strings.TrimSpace(cleantext.String(c.errs.lastLine())); l != "" {
		return l
	}
	return "(input)"
}

// answered ends the question: a line break came.
func (c *call) answered() {
	c.asked, c.question, c.captures, c.taken = false, "", 0, false
}

// takeQuestion takes the question out of the clean text of stdout, with
// the echo of the human's answer that follows it: they are the terminal's
// conversation with the human, not output. It takes the pending line only
// once it is the question the terminal shows, so a note that was wrong
// never takes output; the stream may bring the question after the note
// (it lags), and a later look takes it then.
func (c *call) takeQuestion() {
	if c.clean == nil || c.taken {
		return
	}
	stderrLine := c.errs.lastLine()
	_, c.taken = c.clean.TakePendingIf(func(pending string) bool {
		return isQuestion(pending, stderrLine, c.question)
	})
}

// interrupt runs the two-phase kill: Ctrl-C, and Ctrl-\ if the command is
// still running limits.KillGrace later. The output so far has been streamed
// already; the call ends with failure.ExitTimeout and says what happened.
func (c *call) interrupt(done <-chan streamResult, why, hint string) (int, error) {
	how := "interrupted it with Ctrl-C"
	c.out.hold()
	c.sendKey(ctrlC)
	stopped, r := c.waitStopped(done)
	if !stopped {
		how = "it ignored Ctrl-C, so it was sent Ctrl-\\ (SIGQUIT)"
		c.sendKey(ctrlBackslash)
		stopped, r = c.waitStopped(done)
	}
	c.out.release(r != nil && r.err == nil)
	c.errs.stop()
	if r != nil && r.err == io.ErrUnexpectedEOF {
		return 0, c.req.Bridge.Closed(true)
	}
	if !stopped {
		how += "; it is still running in the shared terminal"
		hint = "ask the user to stop the command in the ptybridge terminal before you run anything else"
	}
	return failure.ExitTimeout, &failure.Error{Code: failure.ExitTimeout, Msg: why + ": " + how, Hint: hint}
}

// waitStopped waits up to limits.KillGrace for the command to end: its END
// marker, or (as an interrupted shell drops the rest of the line) the
// shell back in the foreground of the terminal.
func (c *call) waitStopped(done <-chan streamResult) (bool, *streamResult) {
	deadline := time.After(limits.KillGrace)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case r := <-done:
			return true, &r
		case <-tick.C:
			if fg, err := platform.ForegroundPID(c.rc.PanePID); err == nil && fg == c.shellPID {
				return true, nil
			}
		case <-deadline:
			return false, nil
		}
	}
}
