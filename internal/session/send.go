package session

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/limits"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/proc"
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
	Stdin            *os.File
	Stdout, Stderr   io.Writer
	// Raw passes the command's terminal output on byte for byte; else it
	// is cleaned into the text a pipe would have carried (cleantext).
	Raw bool
}

// Send runs the request's command in the shared pane and returns its exit
// status, or an *Error.
func Send(req Request) (int, error) {
	start := time.Now()
	if !req.Raw {
		clean := cleantext.NewWriter(req.Stdout)
		defer clean.Close()
		req.Stdout = clean
	}
	rc, err := req.Bridge.Turn(req.MaxTime, req.Stderr, start)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	target, err := pane.Locate(rc.PanePID)
	if err != nil {
		return 0, repl.BusyError(req.Bridge, rc.PanePID, err)
	}
	if target.Far {
		return sendFar(req, rc, target, start)
	}
	shellPID, shell := target.PID, target.Shell
	name := proc.Name(shellPID)
	needHooks, err := pane.AwaitFreePrompt(rc, req.Bridge, shellPID, name)
	if err != nil {
		if _, ok := err.(*failure.Error); !ok {
			err = req.Bridge.Closed(false)
		}
		return 0, err
	}
	c := &call{req: req, rc: rc, shell: shell, shellPID: shellPID, shellName: name, start: start}
	c.shellDir, _ = os.Readlink(fmt.Sprintf("/proc/%d/cwd", shellPID))
	if needHooks {
		c.hooks = markers.Integration(name, req.Bridge.RuntimeDir)
	}
	if err := c.prepare(); err != nil {
		return 0, failure.From(err)
	}
	defer c.cleanup()
	// Watch the shell before typing: a command can end it at once.
	c.shellExit = proc.ExitOf(shellPID)
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
	inPath   string
	out      *gate
	hooks    string // shell integration to install with this call

	shell     markers.Shell // the shell typed into: its syntax, name, directory
	shellName string
	shellDir  string
	shellExit <-chan struct{}

	toldWaiting bool
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
	c.script, c.errPath = c.path(".sh"), c.path(".err")
	if err := os.WriteFile(c.errPath, nil, 0o600); err != nil {
		return err
	}
	job := markers.Job{ID: id, Command: c.req.Command, StderrPath: c.errPath}
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
func forwardsStdin(f *os.File) bool {
	return f != nil && !term.IsTerminal(int(f.Fd()))
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
	for _, p := range []string{c.script, c.errPath, c.inPath} {
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
	activity := make(chan struct{}, 1)
	done := make(chan streamResult, 1)
	go c.pump(ext, activity, done)

	noOutput := limits.NewTimer(c.req.Timeout)
	overall := limits.NewTimer(limits.Remaining(c.start, c.req.MaxTime))
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	errSize := int64(0)

	for {
		select {
		case <-c.shellExit:
			select {
			case r := <-done: // it ended after its END marker: no matter
				return c.finish(ext, r)
			default:
			}
			return c.shellEnded(activity)
		case <-activity:
			noOutput.Reset(c.req.Timeout)
		case r := <-done:
			return c.finish(ext, r)
		case <-noOutput.C():
			// Output on stderr goes to a file, not the stream: count it too.
			if size := fileSize(c.errPath); size > errSize {
				errSize = size
				noOutput.Reset(c.req.Timeout)
				continue
			}
			if pane.WaitsForHuman(c.rc.PanePID) {
				c.tellWaitingForHuman()
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
		}
	}
}

// shellEnded reports a command that ended the shell it ran in (exit,
// exec, a failure under set -e, a signal). When that was the pane's own
// shell, remain-on-exit kept the pane, and with it the human's session: a
// new shell is started there.
func (c *call) shellEnded(activity <-chan struct{}) (int, error) {
	c.drainOutput(activity)
	c.copyStderr()
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
func (c *call) drainOutput(activity <-chan struct{}) {
	limit := time.After(200 * time.Millisecond)
	for {
		select {
		case <-activity:
		case <-time.After(20 * time.Millisecond):
			return
		case <-limit:
			return
		}
	}
}

// pump feeds the relay stream into the extractor until END or a hang-up.
func (c *call) pump(ext *markers.Extractor, activity chan<- struct{}, done chan<- streamResult) {
	buf := make([]byte, 64*1024)
	for {
		n, err := c.rc.Read(buf)
		if n > 0 {
			if _, werr := ext.Write(buf[:n]); werr != nil {
				done <- streamResult{err: werr}
				return
			}
			select {
			case activity <- struct{}{}:
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
	c.copyStderr()
	if r.err == io.ErrUnexpectedEOF {
		return 0, c.req.Bridge.Closed(true)
	}
	if r.err != nil {
		return 0, &failure.Error{Msg: "writing the output: " + r.err.Error(), Hint: "make sure ptysend's standard output can be written"}
	}
	return ext.Status(), nil
}

// tellWaitingForHuman says once what the terminal asks and who answers.
func (c *call) tellWaitingForHuman() {
	if c.toldWaiting {
		return
	}
	c.toldWaiting = true
	asks := pane.WhatTheTerminalAsks(c.rc.PaneID)
	if asks == "" {
		asks = "(input)"
	}
	fmt.Fprintf(c.req.Stderr, "ptysend: the command is waiting for input in the shared terminal: %q\n"+
		"ptysend: ask the user to answer it there; --timeout is paused while it waits (--max-time still applies)\n", asks)
}

func (c *call) copyStderr() {
	if f, err := os.Open(c.errPath); err == nil {
		io.Copy(c.req.Stderr, f)
		f.Close()
	}
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
	if r != nil && r.err == io.ErrUnexpectedEOF {
		return 0, c.req.Bridge.Closed(true)
	}
	c.copyStderr()
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
			if fg, err := proc.ForegroundPID(c.rc.PanePID); err == nil && fg == c.shellPID {
				return true, nil
			}
		case <-deadline:
			return false, nil
		}
	}
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
