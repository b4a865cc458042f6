package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sync"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/limits"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// A far call runs the command in a shell ptysend cannot read in /proc
// (another user's, host's or namespace's), through the terminal stream
// only (see markers/far.go for the protocol). The contract is the local
// one; what differs is how ptysend learns things:
//
//   - the far shell's kind from the probe, its state from its hooks;
//   - the command's stderr from R/r frames in the stream;
//   - that the interrupted command stopped from the far shell's PROMPT
//     event, not from the terminal's foreground process;
//   - that the command waits for the human from the cursor line (a
//     question, a password prompt), not from wait channels.

// probeWait bounds the wait for the probe's answer: a shell answers in
// milliseconds, a program that is no shell never does.
const probeWait = 1200 * time.Millisecond

// screenSettle is how long a far shell without hooks gets to show its
// prompt on the screen before the call is refused.
const screenSettle = 500 * time.Millisecond

// readyWait bounds the wait for the loader's READY: its line was typed
// into a shell that answered the probe, but may lack mktemp or base64.
const readyWait = 5 * time.Second

// maxFarStdin bounds the stdin forwarded to a far command: it travels
// typed, in base64, through the terminal.
const maxFarStdin = 16 << 20

// stdinIdle: a stdin that is neither at its end nor sent a byte after
// this long is an idle pipe, not data for the command.
const stdinIdle = 200 * time.Millisecond

func sendFar(req Request, rc *relay.Client, t pane.Target, start time.Time) (int, error) {
	f, err := openFar(req, rc, t, start)
	if err != nil {
		return 0, err
	}
	return f.run()
}

// openFar makes sure the far shell waits at its prompt, and probes it when
// it has no hooks yet; the human approves the command first under
// ptybridge --confirm.
func openFar(req Request, rc *relay.Client, t pane.Target, start time.Time) (*farCall, error) {
	rec := pane.FarRecordFor(req.Bridge, t.PID)
	hooked := false
	if rec != nil && rec.Hooked {
		switch err := pane.AwaitFarPrompt(rc, rec, rc.PanePID); {
		case err == nil:
			hooked = true
		case errors.Is(err, pane.ErrFarSilent):
		case errors.As(err, new(*pane.FarBusyError)):
			// A shell the human started inside the far one (sudo -i, su,
			// ssh on): probed when the screen shows its prompt.
			scr, serr := tmux.ScreenOf(rc.PaneID)
			if serr != nil || pane.CheckFarPrompt(scr, t.Name) != nil {
				return nil, err.(*pane.FarBusyError).Err
			}
		case errors.As(err, new(*failure.Error)):
			return nil, err
		default:
			return nil, req.Bridge.Closed(false)
		}
	}
	f := &farCall{req: req, rc: rc, target: t, start: start, hooked: hooked}
	if hooked {
		if req.Bridge.InCopyMode() {
			return nil, pane.CopyModeError
		}
		if err := req.approve(rc); err != nil {
			return nil, err
		}
	} else {
		var err error
		if rec, err = f.probe(); err != nil {
			return nil, err
		}
	}
	f.rec = rec
	return f, nil
}

// run types the call and waits for it.
func (f *farCall) run() (int, error) {
	req, rc, t, rec, hooked := f.req, f.rc, f.target, f.rec, f.hooked
	signals, stop := limits.NotifyStop()
	defer stop()
	stdin, forward, err := readFarStdin(req.Stdin)
	if err != nil {
		return 0, err
	}
	id, err := markers.NewID()
	if err != nil {
		return 0, failure.From(err)
	}
	f.id = id
	loader := markers.FarLoader(rec.Kind, id, hooked)
	empty := forward && len(stdin) == 0
	forward = forward && !empty
	// The rows the loader's echo took: known from the screen the probe
	// saw; later, the prompt may have changed, and erasing a row too many
	// would take a line of the human's output: one row then.
	rows := 1
	if !hooked {
		rows = (rec.PromptCol+len(loader))/max(rec.Width, 1) + 1
	}
	job := markers.FarJob{ID: id, Command: req.Command, Kind: rec.Kind, First: !hooked, Stdin: forward, EmptyStdin: empty,
		EraseRows: rows}
	watch, stopWatching := context.WithCancel(context.Background())
	defer stopWatching()
	f.carrierExit = platform.WatchExit(watch, t.PID)
	f.bridgeCommand = platform.Parent(t.PID) == rc.PanePID && bridge.IsCommandRunner(platform.Args(rc.PanePID))
	f.signals = signals
	if err := rc.Type(loader + "\r"); err != nil {
		return 0, failure.From(err)
	}
	f.loaderTyped = true
	rest, err := f.awaitMarker(markers.Ready(id), readyWait, "the loader line")
	if err != nil {
		return 0, err
	}
	if err := rc.Type(markers.TypedPayload(rec.Kind, hooked, markers.FarScript(job))); err != nil {
		return 0, failure.From(err)
	}
	if forward {
		r2, err := f.awaitMarkerAfter(rest, markers.ReadyStdin(id), readyWait, "the command's stdin")
		if err != nil {
			return 0, err
		}
		rest = r2
		if err := rc.Type(markers.PayloadLines(stdin)); err != nil {
			return 0, failure.From(err)
		}
	}
	if !hooked {
		note := "the command runs at the far end of " + t.Name
		fmt.Fprintf(req.Stderr, "ptysend: note: %s (a %s shell); its commands are code for that shell\n", note, rec.Kind)
	}
	return f.wait(rest)
}

// farCall is one command's run in a far shell.
type farCall struct {
	req         Request
	rc          *relay.Client
	target      pane.Target
	rec         *pane.FarRecord
	start       time.Time
	hooked      bool
	id          markers.ID
	out         *gate
	tracker     *markers.Tracker
	preMu       sync.Mutex
	pre         []byte // the stream before START, for the INFO marker
	carrierExit <-chan struct{}
	signals     chan os.Signal // the stop signals, from before the loader is typed
	loaderTyped bool
	// bridgeCommand: the carrier is the bridge's own command (ptybridge
	// -- ssh web1), whose end closes the bridge.
	bridgeCommand bool
	toldWaiting   bool
}

// probe checks the screen of a far shell without hooks and asks it what
// it is. It records what it learnt.
func (f *farCall) probe() (*pane.FarRecord, error) {
	// The far shell may draw its prompt a moment after the last call
	// ended (a REPL that just exited): the screen gets settleLimit.
	var scr tmux.Screen
	deadline := time.Now().Add(screenSettle)
	for {
		var err error
		if scr, err = tmux.ScreenOf(f.rc.PaneID); err != nil {
			return nil, failure.From(err)
		}
		err = pane.CheckFarPrompt(scr, f.target.Name)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			return nil, err
		}
		time.Sleep(50 * time.Millisecond)
	}
	if platform.TypedAhead(f.rc.PanePID) {
		return nil, pane.HalfTypedError
	}
	if f.req.Bridge.InCopyMode() {
		return nil, pane.CopyModeError
	}
	if err := f.req.approve(f.rc); err != nil {
		return nil, err
	}
	rows := (scr.Col+markers.ProbeLen())/max(scr.Width, 1) + 1
	if err := f.rc.Type(markers.Probe(rows) + "\r"); err != nil {
		return nil, failure.From(err)
	}
	var seen []byte
	deadline = time.Now().Add(probeWait)
	buf := make([]byte, 4096)
	for {
		f.rc.SetReadDeadline(deadline)
		n, err := f.rc.Read(buf)
		seen = append(seen, buf[:n]...)
		if kind, found, ok := markers.ParseProbeAnswer(seen); found {
			f.rc.SetReadDeadline(time.Time{})
			if !ok {
				return nil, pane.NoAnswerError(f.target.Name, scr.Line)
			}
			f.settle()
			rec := &pane.FarRecord{Carrier: platform.ExecImage(f.target.PID), CarrierName: f.target.Name, Kind: kind,
				PromptCol: scr.Col, Width: scr.Width}
			pane.SaveFar(f.req.Bridge, rec)
			return rec, nil
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			f.rc.SetReadDeadline(time.Time{})
			return nil, pane.NoAnswerError(f.target.Name, scr.Line)
		}
		if err != nil {
			return nil, f.req.Bridge.Closed(false)
		}
	}
}

// settle lets the far shell draw its prompt again after the probe: what
// is typed before its line editor reads would be echoed twice.
func (f *farCall) settle() {
	buf := make([]byte, 4096)
	limit := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(limit) {
		f.rc.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
		_, err := f.rc.Read(buf)
		if err != nil {
			break
		}
	}
	f.rc.SetReadDeadline(time.Time{})
}

// awaitMarker reads the stream until marker, and returns what followed
// it in the same read.
func (f *farCall) awaitMarker(marker string, limit time.Duration, what string) ([]byte, error) {
	return f.awaitMarkerAfter(nil, marker, limit, what)
}

func (f *farCall) awaitMarkerAfter(seen []byte, marker string, limit time.Duration, what string) ([]byte, error) {
	m := []byte(marker)
	deadline := time.Now().Add(limit)
	buf := make([]byte, 64*1024)
	for {
		if i := bytes.Index(seen, m); i >= 0 {
			f.rc.SetReadDeadline(time.Time{})
			f.notePre(seen[:i])
			return append([]byte(nil), seen[i+len(m):]...), nil
		}
		// A call stopped while the loader waits for its payload ends it
		// empty. Once the payload is typed (the stdin's READY), the
		// command is on its way: a stop signal waits for wait(), which
		// interrupts the command.
		if marker == markers.Ready(f.id) {
			select {
			case s := <-f.signals:
				return nil, f.abandon(s.String(), 128+int(s.(syscall.Signal)))
			case <-f.req.Cancel:
				return nil, f.abandon("cancellation", 128+int(syscall.SIGINT))
			default:
			}
		}
		// Short reads, so that a stop signal is heard while waiting.
		next := time.Now().Add(50 * time.Millisecond)
		if deadline.Before(next) {
			next = deadline
		}
		f.rc.SetReadDeadline(next)
		n, err := f.rc.Read(buf)
		seen = append(seen, buf[:n]...)
		if bytes.Contains(seen, m) {
			continue
		}
		if errors.Is(err, os.ErrDeadlineExceeded) && time.Now().Before(deadline) {
			continue
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			f.rc.SetReadDeadline(time.Time{})
			if marker == markers.Ready(f.id) {
				// Should the shell run the loader line later (it was busy
				// after all), it then reads an empty payload and runs
				// nothing.
				f.rc.Type(markers.EmptyPayload(f.rec.Kind, f.hooked))
			}
			return nil, &failure.Error{
				Msg: fmt.Sprintf("the far shell (%s, through %s) did not take %s: %s",
					f.rec.Kind, f.target.Name, what, lastLine(seen)),
				Hint: "the far end needs mktemp, stty and base64 (coreutils or busybox), and the shell must be at its prompt; " +
					"look at the ptybridge terminal, and ask the user to press Ctrl-C there if it waits",
			}
		}
		if err != nil {
			return nil, f.req.Bridge.Closed(false)
		}
	}
}

// abandon ends a call stopped while the loader waits for its payload:
// an empty payload (the terminator alone) lets the loader finish, turn
// the echo back on, and run nothing, so the human's terminal is left as
// it was. Typed after READY came, or before it: the loader reads it then.
func (f *farCall) abandon(why string, code int) error {
	if f.loaderTyped {
		f.rc.Type(markers.EmptyPayload(f.rec.Kind, f.hooked))
	}
	return &failure.Error{Code: code, Msg: "stopped by " + why + " before the command ran; nothing ran"}
}

// notePre keeps the stream before START for the INFO marker.
func (f *farCall) notePre(b []byte) {
	f.preMu.Lock()
	defer f.preMu.Unlock()
	if len(f.pre) < 64*1024 {
		f.pre = append(f.pre, b...)
	}
}

var ansi = regexp.MustCompile(`\x1b(\][^\a]*\a|\[[0-9;?]*[ -/]*[@-~]|.)`)

// lastLine is the last non-empty line of raw terminal output, as text.
func lastLine(b []byte) string {
	text := ansi.ReplaceAllString(string(b), "")
	lines := bytes.Split([]byte(text), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if l := bytes.TrimSpace(lines[i]); len(l) > 0 {
			return fmt.Sprintf("%q", l)
		}
	}
	return "nothing was printed"
}

// readFarStdin reads the stdin to forward, whole: it is typed after the
// payload. A terminal, or a pipe that stays idle and open, forwards
// nothing.
func readFarStdin(in io.Reader) ([]byte, bool, error) {
	if !forwardsStdin(in) {
		return nil, false, nil
	}
	type chunk struct {
		b   []byte
		err error
	}
	ch := make(chan chunk, 16)
	go func() {
		for {
			buf := make([]byte, 64*1024)
			n, err := in.Read(buf)
			ch <- chunk{buf[:n], err}
			if err != nil {
				return
			}
		}
	}()
	var data []byte
	idle := time.NewTimer(stdinIdle)
	defer idle.Stop()
	for {
		select {
		case c := <-ch:
			data = append(data, c.b...)
			if len(data) > maxFarStdin {
				return nil, false, &failure.Error{
					Msg:  fmt.Sprintf("the standard input is larger than %d MiB, the most ptysend forwards to a far shell (it is typed through the terminal)", maxFarStdin>>20),
					Hint: "copy the data to the far side another way (scp, a shared directory), or send it in smaller parts",
				}
			}
			if c.err == io.EOF {
				return data, true, nil
			}
			if c.err != nil {
				return nil, false, failure.From(c.err)
			}
		case <-idle.C:
			if len(data) == 0 {
				return nil, false, nil
			}
			idle.Reset(time.Hour) // data flows: read to its end
		}
	}
}

// wait streams the output until END, a timeout or a hang-up; rest is the
// stream read already.
func (f *farCall) wait(rest []byte) (int, error) {
	f.out = &gate{w: f.req.Stdout}
	ext := markers.NewExtractor(f.id, f.out)
	split := markers.NewFrameSplitter(f.id, ext, f.req.Stderr)
	f.tracker = markers.TrackerFrom(markers.Snapshot{})
	activity := make(chan struct{}, 1)
	prompt := make(chan struct{}, 1)
	done := make(chan streamResult, 1)
	go f.pump(rest, split, ext, activity, prompt, done)
	noOutput := limits.NewTimer(f.req.Timeout)
	overall := limits.NewTimer(limits.Remaining(f.start, f.req.MaxTime))
	signals := f.signals
	for {
		select {
		case <-f.carrierExit:
			select {
			case r := <-done:
				return f.finish(ext, r)
			case <-time.After(200 * time.Millisecond):
			}
			if f.bridgeCommand {
				// The carrier was the bridge's own command (ptybridge -- ssh
				// web1): the pane closes, as when the human's shell ends.
				f.req.Bridge.ClosePane(f.rc.PaneID, f.rc.PanePID)
				return 0, &failure.Error{
					Msg: fmt.Sprintf("the command ended the far shell (%s), and with it the shared terminal's own command (%s): the bridge %s is closed",
						f.rec.Kind, f.target.Name, f.req.Bridge.Name),
					Hint: "do not run exit or exec through ptysend; ask the user to open the bridge again",
				}
			}
			return 0, &failure.Error{
				Msg: fmt.Sprintf("the command ended the far shell (%s, through %s); the terminal is back in the user's local shell",
					f.rec.Kind, f.target.Name),
				Hint: "do not run exit or exec through ptysend; your next command runs in the local shell",
			}
		case <-activity:
			noOutput.Reset(f.req.Timeout)
		case r := <-done:
			return f.finish(ext, r)
		case <-noOutput.C():
			if f.waitsForHuman() {
				noOutput.Reset(f.req.Timeout)
				continue
			}
			return f.interrupt(done, prompt, fmt.Sprintf("no output for %v (--timeout)", f.req.Timeout),
				"if the command is slow but quiet, rerun it with a larger --timeout, e.g. --timeout 60")
		case <-overall.C():
			return f.interrupt(done, prompt, fmt.Sprintf("the command ran longer than %v (--max-time)", f.req.MaxTime),
				"if it needs longer, rerun it with a larger --max-time, or run it in the background and poll")
		case s := <-signals:
			status, _ := f.interrupt(done, prompt, "ptysend was stopped by "+s.String(), "")
			if status == failure.ExitTimeout {
				status = 128 + int(s.(syscall.Signal))
			}
			return status, &failure.Error{Code: status, Msg: "stopped by " + s.String() + "; the command was interrupted"}
		case <-f.req.Cancel: // as a Ctrl-C at the caller's end
			status, _ := f.interrupt(done, prompt, "the call was cancelled", "")
			if status == failure.ExitTimeout {
				status = 128 + int(syscall.SIGINT)
			}
			return status, &failure.Error{Code: status, Msg: "the call was cancelled; the command was interrupted"}
		}
	}
}

// pump feeds the stream to the splitter (stderr frames out, the rest to
// the extractor) and to a tracker that sees the far shell's prompt come
// back after an interrupt.
func (f *farCall) pump(rest []byte, split *markers.FrameSplitter, ext *markers.Extractor,
	activity, prompt chan<- struct{}, done chan<- streamResult) {
	feed := func(b []byte) bool {
		if !ext.Started() {
			f.notePre(b)
		}
		if _, err := split.Write(b); err != nil {
			done <- streamResult{err: err}
			return false
		}
		f.tracker.Write(b)
		if s := f.tracker.Snapshot(); s.State == markers.StatePrompt && s.PID == f.farPID() {
			select {
			case prompt <- struct{}{}:
			default:
			}
		}
		select {
		case activity <- struct{}{}:
		default:
		}
		if ext.Done() {
			done <- streamResult{}
			return false
		}
		return true
	}
	if len(rest) > 0 && !feed(rest) {
		return
	}
	buf := make([]byte, 64*1024)
	for {
		n, err := f.rc.Read(buf)
		if n > 0 && !feed(buf[:n]) {
			return
		}
		if err != nil {
			done <- streamResult{err: io.ErrUnexpectedEOF}
			return
		}
	}
}

// farPID is the far shell's pid: from the record, or from this call's
// INFO marker.
func (f *farCall) farPID() int {
	if f.hooked {
		return f.rec.PID
	}
	if info, ok := f.info(); ok {
		return info.PID
	}
	return -1
}

func (f *farCall) info() (markers.FarInfo, bool) {
	f.preMu.Lock()
	defer f.preMu.Unlock()
	return markers.ParseInfo(f.pre, f.id)
}

// finish reports the end of the stream and records what the first call
// learnt of the far shell.
func (f *farCall) finish(ext *markers.Extractor, r streamResult) (int, error) {
	if r.err == io.ErrUnexpectedEOF {
		return 0, f.req.Bridge.Closed(true)
	}
	if r.err != nil {
		return 0, &failure.Error{Msg: "writing the output: " + r.err.Error(), Hint: "make sure ptysend's standard output can be written"}
	}
	f.learn()
	return ext.Status(), nil
}

// learn records, after the first call, that the far shell has its hooks.
func (f *farCall) learn() {
	if f.hooked {
		return
	}
	if info, ok := f.info(); ok {
		f.rec.Hooked, f.rec.PID, f.rec.User, f.rec.Host = true, info.PID, info.User, info.Host
		pane.SaveFar(f.req.Bridge, f.rec)
	}
}

// farAsks: a cursor line that asks the human something.
var farAsks = regexp.MustCompile(`[:?]\s*$`)

// waitsForHuman: /proc cannot see the far program; the cursor line can
// show that it asks something (a password, a question).
func (f *farCall) waitsForHuman() bool {
	line := pane.WhatTheTerminalAsks(f.rc.PaneID)
	if line == "" || !(pane.AsksSecret(line) || farAsks.MatchString(line)) {
		return false
	}
	if !f.toldWaiting {
		f.toldWaiting = true
		fmt.Fprintf(f.req.Stderr, "ptysend: the terminal asks: %q\n"+
			"ptysend: the user must answer it in the ptybridge terminal: ask them to; "+
			"--timeout is paused while it waits (--max-time still applies)\n", line)
	}
	return true
}

// interrupt runs the two-phase kill through the terminal: Ctrl-C, and
// Ctrl-\ if the far shell's prompt has not come back limits.KillGrace
// later.
func (f *farCall) interrupt(done <-chan streamResult, prompt <-chan struct{}, why, hint string) (int, error) {
	how := "interrupted it with Ctrl-C"
	f.out.hold()
	f.rc.Type(ctrlC)
	stopped, r := f.waitStopped(done, prompt)
	if !stopped {
		how = "it ignored Ctrl-C, so it was sent Ctrl-\\ (SIGQUIT)"
		f.rc.Type(ctrlBackslash)
		stopped, r = f.waitStopped(done, prompt)
	}
	f.out.release(r != nil && r.err == nil)
	if r != nil && r.err == io.ErrUnexpectedEOF {
		return 0, f.req.Bridge.Closed(true)
	}
	f.learn()
	if !stopped {
		how += "; it is still running in the shared terminal"
		hint = "ask the user to stop the command in the ptybridge terminal before you run anything else"
	}
	return failure.ExitTimeout, &failure.Error{Code: failure.ExitTimeout, Msg: why + ": " + how, Hint: hint}
}

func (f *farCall) waitStopped(done <-chan streamResult, prompt <-chan struct{}) (bool, *streamResult) {
	deadline := time.After(limits.KillGrace)
	for {
		select {
		case r := <-done:
			return true, &r
		case <-prompt:
			return true, nil
		case <-deadline:
			return false, nil
		}
	}
}
