package call

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// far runs the command in a shell ptysend cannot read in the process table (another user's, host's
// or namespace's), through the terminal stream only (markers/far.go has the protocol): the shell's
// kind from a probe, its state from its hooks, stderr from R/r frames, that an interrupt took from
// its PROMPT event, a question from the cursor line.
type far struct {
	c   *Call
	end *pane.Far
	rec *pane.FarRecord
	id  markers.ID
	// bridgeCommand: the carrier is the bridge's own command (ptybridge
	// -- ssh web1), whose end closes the bridge.
	bridgeCommand bool
	ext           *markers.Extractor
	split         *markers.FrameSplitter
	prompt        promptSeen // the far shell's PROMPT came (after an interrupt)
	mu            sync.Mutex
	pre           []byte // the stream before START, for the INFO marker
}

const (
	// probeWait: a shell answers the probe in milliseconds, a program that is no shell never.
	probeWait = 1200 * time.Millisecond
	// readyWait: the shell that answered the probe may still lack mktemp or base64 for the loader.
	readyWait = 5 * time.Second
)

func newFar(c *Call, end *pane.Far) *far {
	return &far{c: c, end: end, rec: end.Record, prompt: newPromptSeen()}
}

// LoadFar types, in the far shell the look found, the far wrapper that
// runs command under id with its stdin and stderr left on the terminal
// (a REPL's), and returns the stream read past the loader's READY.
func (c *Call) LoadFar(end *pane.Far, id markers.ID, command string) ([]byte, error) {
	f := newFar(c, end)
	f.id = id
	return f.load(markers.FarJob{Command: command, Terminal: true})
}

// start reads the stdin to forward, loads the wrapper (the look refused a far REPL in the way) and
// types the stdin once the wrapper is ready for it.
func (f *far) start(done chan<- streamEnd) error {
	stdin, err := f.c.Req.farStdin() // nil: none is forwarded
	if err != nil {
		return err
	}
	empty := stdin != nil && len(stdin) == 0
	f.c.emptyStdin.Store(empty && isPipe(f.c.Req.Stdin))
	if f.id, err = markers.NewID(); err != nil {
		return failure.From(err)
	}
	job := markers.FarJob{Command: f.c.Req.Command, Stdin: len(stdin) > 0, EmptyStdin: empty}
	rest, err := f.load(job)
	if err != nil {
		return err
	}
	if job.Stdin {
		if rest, err = f.awaitMarker(rest, markers.ReadyStdin(f.id), "the command's stdin"); err != nil {
			return err
		}
		if err := f.c.T.Type(markers.PayloadLines(stdin)); err != nil {
			return failure.From(err)
		}
	}
	if !f.end.Hooked {
		fmt.Fprintf(f.c.Req.Notes, "ptysend: note: the command runs at the far end of %s (a %s shell); its commands are code for that shell\n",
			f.end.Via, f.rec.Kind)
	}
	f.ext = markers.NewExtractor(f.id, f.c.answers)
	f.split = markers.NewFrameSplitter(f.id, f.ext, f.c.Req.Stderr)
	go func() { done <- f.c.pump(f.ext, f, rest) }()
	return nil
}

// load probes a shell without hooks, types the loader and, after READY, the wrapper for job.
func (f *far) load(job markers.FarJob) ([]byte, error) {
	hooked := f.end.Hooked
	if !hooked {
		if err := f.probe(); err != nil {
			return nil, err
		}
	}
	job.ID, job.Kind, job.First = f.id, f.rec.Kind, !hooked
	loader := markers.FarLoader(f.rec.Kind, f.id, hooked)
	// The rows the loader's echo took, known from the screen the probe saw; later the prompt may
	// have changed: one row, as erasing a row too many would take a line of the human's output.
	job.EraseRows = 1
	if !hooked {
		job.EraseRows = markers.EchoRows(f.rec.PromptCol, len(loader), f.rec.Width)
	}
	f.c.exit = platform.WatchExit(f.c.Ctx, f.end.Carrier.PID)
	f.bridgeCommand = platform.Parent(f.end.Carrier.PID) == f.c.T.PanePID && bridge.IsCommandRunner(platform.Args(f.c.T.PanePID))
	f.c.T.Runs(string(f.id), job.Command)
	if hooked {
		if err := f.c.TypeIf(loader + "\r"); err != nil {
			return nil, err
		}
	} else if err := f.c.T.Type(loader + "\r"); err != nil { // the probe's answer moved the stream
		return nil, failure.From(err)
	}
	rest, err := f.awaitMarker(nil, markers.Ready(f.id), "the loader line")
	if err != nil {
		return nil, err
	}
	if err := f.c.T.Type(markers.TypedPayload(f.rec.Kind, hooked, markers.FarScript(job))); err != nil {
		return nil, failure.From(err)
	}
	return rest, nil
}

// probe asks a far shell without hooks what it is, in a line valid in bash, zsh, dash and fish.
func (f *far) probe() error {
	scr := f.end.Screen
	rows := (scr.CursorX+markers.ProbeLen())/max(scr.Width, 1) + 1
	if err := f.c.TypeIf(markers.Probe(rows) + "\r"); err != nil {
		return err
	}
	var kind markers.FarKind
	var found, ok bool
	_, err := f.readUntil(nil, probeWait, func(seen []byte) bool {
		kind, found, ok = markers.ParseProbeAnswer(seen)
		return found
	})
	switch {
	case found && ok:
		f.settle()
		f.rec = &pane.FarRecord{Carrier: platform.ExecImage(f.end.Carrier.PID), CarrierName: f.end.Via, Kind: kind,
			PromptCol: scr.CursorX, Width: scr.Width}
		pane.SaveFar(f.c.B, f.rec)
		return nil
	case found, errors.Is(err, os.ErrDeadlineExceeded):
		return pane.NoAnswerError(f.end.Via, scr.CursorLine())
	}
	return f.c.B.Closed(false)
}

// settle lets the far shell redraw its prompt: keys typed before its line editor reads echo twice.
func (f *far) settle() {
	buf := make([]byte, 4096)
	for limit := time.Now().Add(300 * time.Millisecond); time.Now().Before(limit); {
		f.c.T.SetReadDeadline(time.Now().Add(30 * time.Millisecond))
		if _, err := f.c.T.Read(buf); err != nil {
			break
		}
	}
	f.c.T.SetReadDeadline(time.Time{})
}

// readUntil reads the stream onto seen until found(seen), for at most limit.
func (f *far) readUntil(seen []byte, limit time.Duration, found func([]byte) bool) ([]byte, error) {
	f.c.T.SetReadDeadline(time.Now().Add(limit))
	defer f.c.T.SetReadDeadline(time.Time{})
	buf := make([]byte, 64<<10)
	for !found(seen) {
		n, err := f.c.T.Read(buf)
		seen = append(seen, buf[:n]...)
		if err != nil && !found(seen) {
			return seen, err
		}
	}
	return seen, nil
}

// awaitMarker reads the stream after seen until marker, and returns what followed it. A loader left
// waiting for its payload, as the call stopped or gave up, is sent it empty: the shell runs
// nothing, even later (it may have been busy after all).
func (f *far) awaitMarker(seen []byte, marker, what string) ([]byte, error) {
	m := []byte(marker)
	stop := context.AfterFunc(f.c.Ctx, func() { f.c.T.SetReadDeadline(time.Now()) })
	defer stop()
	seen, err := f.readUntil(seen, readyWait, func(seen []byte) bool { return bytes.Contains(seen, m) })
	if i := bytes.Index(seen, m); i >= 0 {
		f.notePre(seen[:i])
		return seen[i+len(m):], nil
	}
	loading, late := marker == markers.Ready(f.id), errors.Is(err, os.ErrDeadlineExceeded)
	if loading && (f.c.Ctx.Err() != nil || late) {
		f.c.T.Type(markers.EmptyPayload(f.rec.Kind, f.end.Hooked))
	}
	switch {
	case f.c.Ctx.Err() != nil && loading:
		code, why := failure.Stopped(f.c.Ctx)
		return nil, &failure.Error{Code: code, Msg: why + " before the command ran; nothing ran", Hint: failure.StoppedHint}
	case late:
		return nil, &failure.Error{
			Msg: fmt.Sprintf("the far shell (%s, through %s) did not take %s: %s",
				f.rec.Kind, f.end.Via, what, lastLine(seen)),
			Hint: "the far end needs mktemp, stty and base64 (coreutils or busybox), and the shell must be at its prompt; " +
				"look at the ptybridge terminal, and ask the user to press Ctrl-C there if it waits",
		}
	}
	return nil, f.c.B.Closed(false)
}

func (f *far) notePre(b []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pre) < 64<<10 {
		f.pre = append(f.pre, b...)
	}
}

// lastLine is the last non-empty line of raw terminal output, as text.
func lastLine(b []byte) string {
	lines := strings.Split(cleantext.String(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return strconv.Quote(l)
		}
	}
	return "nothing was printed"
}

// Write takes the stream: stderr frames out, the rest to the extractor and a tracker of the prompt.
func (f *far) Write(b []byte) (int, error) {
	if !f.ext.Started() {
		f.notePre(b)
	}
	if _, err := f.split.Write(b); err != nil {
		return 0, err
	}
	f.prompt.see(b, f.farPID())
	return len(b), nil
}

func (f *far) farPID() int {
	if f.end.Hooked {
		return f.rec.PID
	}
	if info, ok := f.info(); ok {
		return info.PID
	}
	return -1
}

func (f *far) info() (markers.FarInfo, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return markers.ParseInfo(f.pre, f.id)
}

func (f *far) stopped() <-chan struct{} { return f.prompt.came }
func (f *far) answered()                {}

// holdsTerminal: the far programs are out of sight; an interrupt waits for START only.
func (f *far) holdsTerminal() <-chan struct{} { return f.c.started }

// question: the kernel cannot see the far program, but the cursor line can show a question.
func (f *far) question() string { return pane.FarAsks(f.c.T.PaneID) }

// shellEnded: a far shell that ends ends its carrier.
func (f *far) shellEnded() error {
	if f.bridgeCommand {
		// The pane closes, as when the human's shell ends.
		f.c.B.ClosePane(f.c.T.PaneID, f.c.T.PanePID)
		return &failure.Error{
			Msg: fmt.Sprintf("the command ended the far shell (%s), and with it the shared terminal's own command (%s): the bridge %s is closed",
				f.rec.Kind, f.end.Via, f.c.B.Name),
			Hint: "do not run exit or exec through ptysend; ask the user to open the bridge again",
		}
	}
	return &failure.Error{
		Msg: fmt.Sprintf("the command ended the far shell (%s, through %s); the terminal is back in the user's local shell",
			f.rec.Kind, f.end.Via),
		Hint: "do not run exit or exec through ptysend; your next command runs in the local shell",
	}
}

// finish records, after the first call, that the far shell has its hooks.
func (f *far) finish() {
	if f.end.Hooked || f.rec == nil {
		return
	}
	if info, ok := f.info(); ok {
		f.rec.Hooked, f.rec.PID, f.rec.User, f.rec.Host = true, info.PID, info.User, info.Host
		pane.SaveFar(f.c.B, f.rec)
	}
}
