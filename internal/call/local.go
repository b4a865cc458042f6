package call

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/rundir"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// local runs the command in a shell of ours (same user and namespaces): a typed line sources the
// wrapper; stderr and stdin go through fifos, and the shell is watched in the process table.
type local struct {
	questions
	shell  pane.Shell
	dir    string // the shell's directory, for a new shell if it ends
	id     markers.ID
	hooks  string // the shell integration to install with this call
	inPath string // the stdin fifo, when stdin is forwarded
	ext    *markers.Extractor
	prompt promptSeen    // the shell's prompt event after START: it runs the command no more
	quit   chan struct{} // closed by finish: the call is over (not its Ctx, which a stop ends first)
}

func newLocal(c *Call, shell pane.Shell) *local {
	return &local{shell: shell, prompt: newPromptSeen(), quit: make(chan struct{}), questions: questions{c: c,
		waits: func() bool { return pane.WaitsForHuman(c.T.PaneID, c.T.PanePID) },
		asks:  func() (string, bool) { return pane.Asks(c.T.PaneID) }}}
}

func (l *local) path(ext string) string { return filepath.Join(l.c.B.RuntimeDir, string(l.id)+ext) }

func (l *local) start(done chan<- streamEnd) error {
	if err := l.prepare(); err != nil {
		return err
	}
	l.dir, _ = platform.Cwd(l.shell.PID)
	l.c.exit = platform.WatchExit(l.c.Ctx, l.shell.PID) // a command can end the shell at once
	l.c.T.Runs(string(l.id), l.c.Req.Command)           // for the relay's history
	// Before the typing: finish stops it, whether anything was typed or not.
	go l.errs.run()
	if err := l.c.TypeIf(markers.SourceLine(l.shell.Syntax, l.path(".sh")) + "\r"); err != nil {
		return err
	}
	if l.hooks != "" {
		pane.RecordHooked(l.c.B, l.shell.PID)
	}
	if l.inPath != "" { // fed once the shell opened its end (or finish ends the wait)
		go func() {
			if w, err := os.OpenFile(l.inPath, os.O_WRONLY, 0); err == nil {
				n, _ := io.Copy(w, l.c.Req.Stdin)
				w.Close()
				l.c.emptyStdin.Store(n == 0 && isPipe(l.c.Req.Stdin))
			}
		}()
	}
	l.ext = markers.NewExtractor(l.id, l.c.answers)
	go func() {
		e := l.c.pump(l.ext, l, nil)
		if e.err == nil {
			l.settle()
		}
		done <- e
	}()
	SweepLeftovers(l.c.B.RuntimeDir)
	return nil
}

func (l *local) prepare() error {
	var err error
	if l.id, err = NewCallID(l.c.B.RuntimeDir); err != nil {
		return failure.From(err)
	}
	tty := cmp.Or(l.shell.TTY, platform.TTYOf(l.shell.PID))
	job := markers.Job{ID: l.id, Command: l.c.Req.Command, StderrPath: l.path(".err"), AckPath: l.path(".ack"),
		EraseRows: l.c.EchoRows(markers.SourceLine(l.shell.Syntax, l.path(".sh")), tty)}
	l.errs, err = openStderrCopy(l.id, job.StderrPath, job.AckPath, tty, l.c.B.Exe, l.c.Req.Stderr, l.c.arrived)
	if err != nil {
		return failure.From(fmt.Errorf("creating the stderr pipe: %w", err))
	}
	if ForwardsStdin(l.c.Req.Stdin) {
		l.inPath = l.path(".in")
		if err := syscall.Mkfifo(l.inPath, 0o600); err != nil {
			return failure.From(fmt.Errorf("creating the stdin pipe: %w", err))
		}
		job.StdinPath = l.inPath
	}
	if l.shell.NeedsHooks {
		l.hooks = markers.Integration(l.shell.Name, l.c.B.RuntimeDir)
	}
	if err := os.WriteFile(l.path(".sh"), []byte(l.hooks+markers.Script(l.shell.Syntax, job)), 0o600); err != nil {
		return failure.From(err)
	}
	return nil
}

// settle lets the wrapper, which waits after END, go on to the prompt, once the input holds none of
// the terminal's answers to the output's queries. END is the synchronisation point: tmux parses the
// output it pipes to the relay, answering each query as it goes, so every answer was made (not
// necessarily delivered) once END is seen. A query of ptysend's own comes after them all: its
// answer in the input means that theirs are there. What the input held until then is taken; the
// human's keys among it are typed back before the prompt, which takes them as typed ahead.
func (l *local) settle() {
	if l.c.answers.Queried() {
		platform.AskTerminal(l.errs.screen.path, cleantext.SyncQuery, cleantext.Synced, answerLimit, func(in []byte) int {
			keys := cleantext.WithoutAnswers(in)
			if len(keys) == 0 || l.c.T.Type(string(keys)) != nil {
				return 0
			}
			return len(keys)
		})
	}
	editor := l.shell.Name == "bash" || l.shell.Name == "zsh" || l.shell.Name == "fish"
	typedAhead := editor && platform.InputWaiting(l.errs.screen.path) > 0
	l.errs.release()
	switch {
	case typedAhead:
		// Until the stream shows the keys the human typed during the command, a next call could
		// find the prompt empty and the shell asleep with the keys read: it would type onto them.
		l.await(markers.StateTyped)
	case !editor:
		// Without a line editor (dash) the prompt's own text is what tells the human's line from
		// output: keys typed before it shows are no line of theirs to the history.
		l.await(markers.StatePrompt)
	case l.shell.Syntax == markers.Fish:
		// fish's wrapper waits after END in a child sh, which holds the terminal until let go: a
		// next look before the prompt would find that sh in the foreground.
		l.await(markers.StatePrompt)
	}
}

// await reads the stream, a second at most, until the shell that was let go is in state want.
func (l *local) await(want markers.PaneState) { awaitState(l.c.T, l.shell.PID, want, time.Second) }

// awaitState reads the turn's stream, for limit at most, until shell pid (running something now)
// is in state want; false: it was not in time.
func awaitState(t *relay.Turn, pid int, want markers.PaneState, limit time.Duration) bool {
	tr := markers.TrackerFrom(markers.Snapshot{State: markers.StateRunning, PID: pid})
	t.SetReadDeadline(time.Now().Add(limit))
	defer t.SetReadDeadline(time.Time{})
	buf := make([]byte, 4096)
	for tr.Snapshot().State != want {
		n, err := t.Read(buf)
		tr.Write(buf[:max(n, 0)])
		if err != nil {
			return tr.Snapshot().State == want
		}
	}
	return true
}

// answerLimit bounds the wait for the terminal's answer to the sync query, which tmux gives in
// well under a millisecond: only a terminal that is gone never answers.
const answerLimit = 2 * time.Second

// NewCallID is a new call's id, naming its files, claimed before they exist: no sweep takes them.
func NewCallID(dir string) (markers.ID, error) {
	id, err := markers.NewID()
	if err != nil {
		return "", err
	}
	rundir.Claim(dir, string(id))
	return id, nil
}

// SweepLeftovers removes gone calls' files (a ptysend killed by SIGKILL), but a running REPL's
// script; without OFD locks, none. A call does it once it typed, while the shell works.
func SweepLeftovers(dir string) { rundir.SweepLeftovers(dir, pane.ScriptsInUse(dir)) }

// stopped closes when the shell is back at its prompt after an interrupt: its prompt event came,
// or (a shell whose hooks do not report) it has held the foreground for stillForeground. The
// foreground alone is no proof: just after START the shell has not handed the terminal to the
// command yet, and a loop of builtins never does.
func (l *local) stopped() <-chan struct{} {
	back := make(chan struct{})
	go func() {
		var since time.Time
		for {
			if fg, err := platform.ForegroundPID(l.c.T.PanePID); err != nil || fg != l.shell.PID {
				since = time.Time{}
			} else if since.IsZero() {
				since = time.Now()
			} else if time.Since(since) >= stillForeground {
				break
			}
			select {
			case <-l.prompt.came:
				close(back)
				return
			case <-time.After(20 * time.Millisecond):
			case <-l.quit:
				return
			}
		}
		close(back)
	}()
	return back
}

// holdsTerminal closes when a program has the terminal from the shell, or after programGrace: a
// command of builtins only never hands it over, and a subshell is the shell's program still. The
// shell's child gets the terminal before it runs the program, and a Ctrl-C then is lost: the
// program must run (its name is not the shell's).
func (l *local) holdsTerminal() <-chan struct{} {
	held := make(chan struct{})
	go func() {
		defer close(held)
		for deadline := time.Now().Add(programGrace); time.Now().Before(deadline); {
			fg, err := platform.ForegroundPID(l.c.T.PanePID)
			if err != nil || fg != l.shell.PID && platform.Name(fg) != l.shell.Name {
				return
			}
			select {
			case <-time.After(time.Millisecond):
			case <-l.quit:
				return
			}
		}
	}()
	return held
}

// programGrace is how long an interrupt waits for the command's program to take the terminal.
const programGrace = 100 * time.Millisecond

// stillForeground is how long the shell holds the foreground before an interrupted command with
// no prompt event is taken as stopped.
const stillForeground = time.Second

// Write passes the stream to the extractor and tells prompt when, after START, the shell's prompt
// event comes.
func (l *local) Write(b []byte) (int, error) {
	n, err := l.ext.Write(b)
	if l.ext.Started() {
		l.prompt.see(b, l.shell.PID)
	}
	return n, err
}

// promptSeen follows the hooks' events in the stream and tells came when shell pid is back at
// its prompt: after an interrupt, the sign that the command stopped (both transports).
type promptSeen struct {
	tracker *markers.Tracker
	came    chan struct{}
}

func newPromptSeen() promptSeen {
	return promptSeen{tracker: markers.TrackerFrom(markers.Snapshot{}), came: make(chan struct{}, 1)}
}

func (p promptSeen) see(b []byte, pid int) {
	p.tracker.Write(b)
	if snap := p.tracker.Snapshot(); snap.State == markers.StatePrompt && snap.PID == pid {
		select {
		case p.came <- struct{}{}:
		default:
		}
	}
}

// shellEnded reports a command that ended its shell. When that was the pane's own shell,
// remain-on-exit kept the pane, and with it the human's session: a new shell is started there.
func (l *local) shellEnded() error {
	if l.shell.PID != l.c.T.PanePID {
		return &failure.Error{
			Msg: fmt.Sprintf("the command ended the shell it ran in (%s, which the user had started inside the shared terminal); "+
				"the terminal is back in the user's previous shell", l.shell.Name),
			Hint: "do not run exit or exec through ptysend; your next command runs in the previous shell",
		}
	}
	if err := l.c.B.RespawnShell(l.c.T.PaneID, l.dir); err != nil {
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

// finish ends the stderr copy and removes the call's files. A stdin
// feeder still waiting for a reader (the command never ran) gives up: a
// long-lived caller (the MCP server) keeps no goroutine behind.
func (l *local) finish() {
	close(l.quit)
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
	rundir.Release(string(l.id))
}
