package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/term"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// NoBridgeMessage is what ptysend prints when no bridge is running.
const NoBridgeMessage = "Error: No PTY bridge session is running.\n" +
	"\n" +
	"You have used `ptysend`, but it currently has nowhere to send to.\n" +
	"\n" +
	"The user needs to start the interactive backing terminal using `ptybridge`.\n" +
	"Do not try this yourself - instead, ask the user to do it for you.\n" +
	"\n" +
	"This is necessary for *interactive* commands - for example, sudo (requiring\n" +
	"a password prompt). If you can avoid interactive tools, then prefer that.\n" +
	"Otherwise, please ask the user now.\n"

// KillGrace is how long each phase of the two-phase kill waits for the
// command to stop: Ctrl-C, then Ctrl-\.
const KillGrace = 3 * time.Second

// queueNotice is how long a call waits for its turn before it says so.
const queueNotice = time.Second

// Request is one ptysend call.
type Request struct {
	Bridge  Bridge
	Command string
	// Timeout is the no-output timeout; MaxTime the overall one. Zero
	// disables either.
	Timeout, MaxTime time.Duration
	Stdin            *os.File
	Stdout, Stderr   io.Writer
}

// Send runs the request's command in the shared pane and returns its exit
// status, or an *Error.
func Send(req Request) (int, error) {
	start := time.Now()
	rc, err := openTurn(req.Bridge, req.MaxTime, req.Stderr, start)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	shellPID, shell, err := idleShell(rc.PanePID)
	if err != nil {
		return 0, replBusyError(req.Bridge, rc.PanePID, err)
	}
	name := processName(shellPID)
	needHooks, err := awaitFreePrompt(rc, req.Bridge, shellPID, name)
	if err != nil {
		if _, ok := err.(*Error); !ok {
			err = bridgeClosed(req.Bridge, false)
		}
		return 0, err
	}
	c := &call{req: req, rc: rc, shell: shell, shellPID: shellPID, shellName: name, start: start}
	c.shellDir, _ = os.Readlink(fmt.Sprintf("/proc/%d/cwd", shellPID))
	if needHooks {
		c.hooks = markers.Integration(name, req.Bridge.RuntimeDir)
	}
	if err := c.prepare(); err != nil {
		return 0, asError(err)
	}
	defer c.cleanup()
	// Watch the shell before typing: a command can end it at once.
	c.shellExit = exitOf(shellPID)
	if err := c.typeLine(); err != nil {
		return 0, asError(err)
	}
	if c.hooks != "" {
		recordHooked(req.Bridge, shellPID)
	}
	return c.wait()
}

// connect reaches the bridge's relay, repairing it when it died.
func connect(b Bridge) (*relayClient, error) {
	rc, err := dialRelay(b.socketPath())
	if err == nil {
		return rc, nil
	}
	path, err := b.ensureRelay()
	if errors.Is(err, errNoSession) || errors.Is(err, ErrNoTmux) {
		return nil, &Error{Verbatim: NoBridgeMessage}
	}
	if err != nil {
		return nil, asError(err)
	}
	rc, err = dialRelay(path)
	if err != nil {
		return nil, asError(err)
	}
	return rc, nil
}

// openTurn reaches the relay and waits for this call's turn. A relay of
// another protocol version (an older ptybridge's) is replaced once.
func openTurn(b Bridge, maxTime time.Duration, stderr io.Writer, start time.Time) (*relayClient, error) {
	if err := EnsureRuntimeDir(b.RuntimeDir); err != nil {
		return nil, asError(err)
	}
	for retried := false; ; retried = true {
		rc, err := connect(b)
		if err != nil {
			return nil, err
		}
		err = waitForTurn(rc, b, maxTime, stderr, start)
		if err == nil {
			return rc, nil
		}
		rc.Close()
		switch {
		case retried:
		case errors.Is(err, errRelayVersion):
			if _, err := b.replaceRelay(); err != nil {
				return nil, asError(err)
			}
			continue
		case errors.Is(err, errRelayHungUp):
			// It died as we came: connect again, and repair if need be.
			continue
		}
		if errors.Is(err, errRelayHungUp) {
			return nil, bridgeClosed(b, false)
		}
		return nil, asError(err)
	}
}

// errRelayHungUp means the relay closed the connection before our turn.
var errRelayHungUp = errors.New("the relay hung up")

// waitForTurn waits while earlier calls use the pane, within --max-time.
func waitForTurn(rc *relayClient, b Bridge, maxTime time.Duration, stderr io.Writer, start time.Time) error {
	deadline := time.Time{}
	if maxTime > 0 {
		deadline = start.Add(maxTime)
	}
	notice := time.AfterFunc(queueNotice, func() {
		fmt.Fprintln(stderr, "ptysend: waiting for another ptysend call to finish in the shared terminal")
	})
	err := rc.waitTurn(deadline)
	notice.Stop()
	switch {
	case err == nil, errors.Is(err, errRelayVersion):
		return err
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET):
		return errRelayHungUp
	case errors.Is(err, os.ErrDeadlineExceeded):
		return &Error{
			Code: ExitTimeout,
			Msg:  fmt.Sprintf("--max-time %v passed while another ptysend call was using the shared terminal; nothing was run", maxTime),
			Hint: "wait for the other call to finish, or retry with a larger --max-time",
		}
	}
	return bridgeClosed(b, false)
}

// bridgeClosed explains a relay that hung up.
func bridgeClosed(b Bridge, running bool) error {
	what := "the bridge terminal was closed"
	if running {
		what += " while the command was running"
	}
	if _, err := tmux("has-session", "-t", b.target()); err == nil {
		return &Error{
			Msg:  "lost the output stream of the shared terminal (its relay stopped)",
			Hint: "retry the command; if it happens again, ask the user to restart ptybridge",
		}
	}
	return &Error{
		Msg:  what,
		Hint: "ask the user to restart ptybridge in a terminal, then rerun the command (the shell's state, such as cd and variables, is gone)",
	}
}

// asError turns any error into an *Error that says what to do.
func asError(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var u *UnsafeDirError
	if errors.As(err, &u) {
		return &Error{Msg: u.Error(), Hint: u.Hint()}
	}
	if errors.Is(err, ErrNoTmux) {
		return &Error{Msg: err.Error(), Hint: "install tmux (e.g. sudo apt-get install tmux, or brew install tmux)"}
	}
	return &Error{Msg: err.Error(), Hint: "this is unexpected: please report it with the command you ran"}
}

// call is one command's run in the pane.
type call struct {
	req      Request
	rc       *relayClient
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
	id, err := markers.NewID()
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

// typeLine types the short line that sources the script, then Enter
// ("\r", as send-keys Enter). The relay types it over the connection we
// hold: no tmux process on the path of a call (one would cost ~4-5 ms of
// a ~10 ms call). Keys written to the pane's input never become copy-mode
// commands, but the human's scrolled view would drift under the output,
// so a pane in copy mode is refused.
func (c *call) typeLine() error {
	if inCopyMode(c.req.Bridge) {
		return copyModeError
	}
	return c.rc.typeKeys(markers.SourceLine(c.shell, c.script) + "\r")
}

// Interrupt keys, typed through the relay into the terminal's input, where
// the line discipline turns them into SIGINT and SIGQUIT for the command,
// whatever tmux shows (copy mode would take them from send-keys).
const (
	ctrlC         = "\x03"
	ctrlBackslash = "\x1c"
)

func (c *call) sendKey(key string) {
	c.rc.typeKeys(key)
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

	noOutput := newTimer(c.req.Timeout)
	overall := newTimer(remaining(c.start, c.req.MaxTime))
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
			noOutput.reset(c.req.Timeout)
		case r := <-done:
			return c.finish(ext, r)
		case <-noOutput.C():
			// Output on stderr goes to a file, not the stream: count it too.
			if size := fileSize(c.errPath); size > errSize {
				errSize = size
				noOutput.reset(c.req.Timeout)
				continue
			}
			if waitsForHuman(c.rc.PanePID) {
				c.tellWaitingForHuman()
				noOutput.reset(c.req.Timeout)
				continue
			}
			return c.interrupt(done, fmt.Sprintf("no output for %v (--timeout)", c.req.Timeout),
				"if the command is slow but quiet, rerun it with a larger --timeout, e.g. --timeout 60")
		case <-overall.C():
			return c.interrupt(done, fmt.Sprintf("the command ran longer than %v (--max-time)", c.req.MaxTime),
				"if it needs longer, rerun it with a larger --max-time, or run it in the background and poll")
		case s := <-signals:
			status, _ := c.interrupt(done, "ptysend was stopped by "+s.String(), "")
			if status == ExitTimeout {
				status = 128 + int(s.(syscall.Signal))
			}
			return status, &Error{Code: status, Msg: "stopped by " + s.String() + "; the command was interrupted"}
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
		return 0, &Error{
			Msg: fmt.Sprintf("the command ended the shell it ran in (%s, which the user had started inside the shared terminal); "+
				"the terminal is back in the user's previous shell", c.shellName),
			Hint: "do not run exit or exec through ptysend; your next command runs in the previous shell",
		}
	}
	if err := c.req.Bridge.respawnShell(c.rc.PaneID, c.shellDir); err != nil {
		if isMissingSession(err) { // the human closed the bridge: that ended the shell
			return 0, bridgeClosed(c.req.Bridge, true)
		}
		return 0, &Error{
			Msg:  "the command ended the shell of the shared terminal, and starting a new one failed: " + err.Error(),
			Hint: "ask the user to restart ptybridge",
		}
	}
	return 0, &Error{
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
		return 0, bridgeClosed(c.req.Bridge, true)
	}
	if r.err != nil {
		return 0, &Error{Msg: "writing the output: " + r.err.Error(), Hint: "make sure ptysend's standard output can be written"}
	}
	return ext.Status(), nil
}

// tellWaitingForHuman says once what the terminal asks and who answers.
func (c *call) tellWaitingForHuman() {
	if c.toldWaiting {
		return
	}
	c.toldWaiting = true
	asks := whatTheTerminalAsks(c.rc.PaneID)
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
// still running KillGrace later. The output so far has been streamed
// already; the call ends with ExitTimeout and says what happened.
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
		return 0, bridgeClosed(c.req.Bridge, true)
	}
	c.copyStderr()
	if !stopped {
		how += "; it is still running in the shared terminal"
		hint = "ask the user to stop the command in the ptybridge terminal before you run anything else"
	}
	return ExitTimeout, &Error{Code: ExitTimeout, Msg: why + ": " + how, Hint: hint}
}

// waitStopped waits up to KillGrace for the command to end: its END
// marker, or (as an interrupted shell drops the rest of the line) the
// shell back in the foreground of the terminal.
func (c *call) waitStopped(done <-chan streamResult) (bool, *streamResult) {
	deadline := time.After(KillGrace)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case r := <-done:
			return true, &r
		case <-tick.C:
			if fg, err := ForegroundPID(c.rc.PanePID); err == nil && fg == c.shellPID {
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

func remaining(start time.Time, limit time.Duration) time.Duration {
	if limit <= 0 {
		return 0
	}
	if left := time.Until(start.Add(limit)); left > 0 {
		return left
	}
	return time.Nanosecond
}

// optTimer is a timer that never fires when its duration is zero.
type optTimer struct{ t *time.Timer }

func newTimer(d time.Duration) *optTimer {
	if d <= 0 {
		return &optTimer{}
	}
	return &optTimer{time.NewTimer(d)}
}

func (o *optTimer) C() <-chan time.Time {
	if o.t == nil {
		return nil
	}
	return o.t.C
}

func (o *optTimer) reset(d time.Duration) {
	if o.t != nil {
		o.t.Reset(d)
	}
}
