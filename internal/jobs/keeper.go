package jobs

import (
	"bufio"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/limits"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// KeeperArgs are what pipe-pane starts the keeper with (hidden flags of
// ptysend).
type KeeperArgs struct {
	Socket  string // where to listen
	Name    string
	Pane    string // the window's pane id
	PanePID int    // its process: the supervisor
	ID      markers.ID
	Ready   string // the fifo on which ptysend --job waits for the job to run
	Command string // the job's command, shortened, for --jobs
	// Session and RuntimeDir are the bridge's: once the job runs, the
	// keeper makes a spare window for the next one (spare.go).
	Session, RuntimeDir string
	// Spare: the window waits for a job (spare.go); Name, ID and Command
	// come with its activation.
	Spare bool
}

// The keeper's standard input is the raw output of the job's window
// (pipe-pane -O), lossless whatever the scrollback; its standard output
// is the window's input (pipe-pane -I), on which it types what clients
// send. Nothing else may ever be written there. It serves until the
// window closes (its input ends), then removes its socket and exits:
// a job's output lives as long as its window.

// RunKeeper runs the keeper of a job's window on the process's standard
// input and output.
func RunKeeper(a KeeperArgs) error {
	return runKeeper(a, os.Stdin, os.Stdout)
}

type jobState int

const (
	starting jobState = iota // no START marker yet
	running
	ended
)

type keeper struct {
	KeeperArgs
	keys   io.Writer
	typing sync.Mutex

	mu      sync.Mutex
	changed *sync.Cond // broadcast on new output, the end, the window's close, a hang-up
	out     *Buffer
	errOut  *Buffer
	split   *frameSplitter
	ext     *markers.Extractor
	tracker markers.Tracker
	state   jobState
	gone    bool // the window closed
	status  int
	// lastErr: the job's stderr was written last (for its last line).
	lastErr bool
	// inputEnded is closed once the window's stream ended and the socket
	// is gone: a client told that the window closed finds no job by its
	// name any more.
	inputEnded         chan struct{}
	started, endedAt   time.Time
	lastFed            time.Time // when the stream last brought bytes
	stoppedBy          string
	waiters            int
	endedCh, startedCh chan struct{}
	// moved is closed once the window is in the bridge session, with its
	// options (at once for a window ptysend --job made).
	moved   chan struct{}
	moveErr error
	// spareMaking is closed once the spare window this keeper makes is
	// made (spare.go); nil while it makes none.
	spareMaking chan struct{}
}

func runKeeper(a KeeperArgs, in io.Reader, keys io.Writer) error {
	k := &keeper{KeeperArgs: a, keys: keys,
		out: NewBuffer(OutputBound, OutputHead), errOut: NewBuffer(StderrBound, StderrHead),
		endedCh: make(chan struct{}), startedCh: make(chan struct{}), inputEnded: make(chan struct{})}
	k.changed = sync.NewCond(&k.mu)
	k.moved = make(chan struct{})
	if !a.Spare {
		k.setJob(a.ID)
		close(k.moved) // ptysend made the window in the bridge session
	}

	// A keeper that listens replaces the socket of an ended job of the
	// same name, whose window is closing (ptysend --job checked, under the
	// name's lock).
	os.Remove(a.Socket)
	ln, err := relay.Listen(a.Socket)
	if err != nil {
		k.tellReady("error the job's keeper could not listen: " + err.Error())
		io.Copy(io.Discard, in) // keep the window's pipe drained
		return err
	}
	mine, _ := os.Stat(a.Socket)
	go k.acceptLoop(ln)
	if !a.Spare {
		go k.tellReadyOnStart()
		go k.watchSupervisor()
	}
	go k.makeSpareOnStart()

	buf := make([]byte, 64*1024)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			k.feed(buf[:n])
		}
		if err != nil {
			break
		}
	}
	ln.Close()
	k.mu.Lock()
	// An activated spare's socket has the job's name now (the same file).
	if now, err := os.Stat(k.Socket); err == nil && mine != nil && os.SameFile(mine, now) {
		os.Remove(k.Socket)
	}
	if k.Spare { // never taken: it is no spare any more
		k.forgetSpare()
	}
	k.gone = true
	k.changed.Broadcast()
	k.mu.Unlock()
	close(k.inputEnded)
	// Followers are told the window is gone, and a stop or close is
	// answered: give them a moment; and a spare window on its way is
	// finished, not left half made.
	time.Sleep(100 * time.Millisecond)
	k.mu.Lock()
	making := k.spareMaking
	k.mu.Unlock()
	if making != nil {
		select {
		case <-making:
		case <-time.After(15 * time.Second):
		}
	}
	return nil
}

// outSink and errSink keep the job's output and stderr; k.mu is held.
type outSink struct{ k *keeper }
type errSink struct{ k *keeper }

func (s outSink) Write(p []byte) (int, error) {
	s.k.lastErr = false
	return s.k.out.Write(p)
}

func (s errSink) Write(p []byte) (int, error) {
	s.k.lastErr = true
	return s.k.errOut.Write(p)
}

// feed takes the next chunk of the window's stream.
func (k *keeper) feed(p []byte) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.lastFed = time.Now()
	k.tracker.Write(p)
	if k.split == nil { // a spare: nothing is the job's yet
		return
	}
	k.split.Write(p)
	if k.state == starting && k.ext.Started() {
		k.state, k.started = running, time.Now()
		close(k.startedCh)
	}
	if k.state == running && k.ext.Done() {
		k.end(k.ext.Status())
		// The supervisor waits for this before it exits (supervisor.go),
		// and it must not exit before its window has remain-on-exit.
		if k.PanePID > 0 {
			go func() {
				<-k.moved
				syscall.Kill(k.PanePID, syscall.SIGUSR2)
			}()
		}
	}
	k.changed.Broadcast()
}

// end records the job's end. Call with k.mu held.
func (k *keeper) end(status int) {
	if k.state == ended {
		return
	}
	if k.state == starting {
		k.started = time.Now()
		close(k.startedCh)
	}
	k.state, k.status, k.endedAt = ended, status, time.Now()
	close(k.endedCh)
	k.changed.Broadcast()
}

// tellReadyOnStart tells ptysend --job, on the ready fifo, that the job
// runs: its START marker came.
func (k *keeper) tellReadyOnStart() {
	select {
	case <-k.startedCh:
		k.tellReady("ok")
	case <-time.After(readyLimit):
	}
}

// readyLimit bounds the wait for a job to start.
const readyLimit = 20 * time.Second

// tellReady writes msg to the ready fifo, if ptysend still waits there.
func (k *keeper) tellReady(msg string) {
	if k.Ready == "" {
		return
	}
	f, err := os.OpenFile(k.Ready, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	f.Write([]byte(msg + "\n"))
	f.Close()
}

// watchSupervisor notices a supervisor that died without an END marker
// (killed by someone): the job is over, and its status is what tmux saw,
// if anything. A supervisor that ended normally printed END before it
// exited, but the stream can lag well behind: tmux relays a big output
// at its own pace, and it blocks for as long as libutempter takes to
// update utmp as the pane's terminal closes (a second and more on a busy
// machine). So only a stream that stays quiet after the exit, and after
// an answer from tmux (which then is not blocked), tells that no END
// will come.
func (k *keeper) watchSupervisor() {
	if !exits(k.PanePID) {
		return
	}
	go nudgeReaper(k.PanePID)
	for {
		if k.endedWithin(200*time.Millisecond) || !k.quietFor(time.Second) {
			if k.ended() {
				return
			}
			continue
		}
		status := -1
		out, err := tmux.Run("display-message", "-p", "-t", k.Pane, "#{pane_dead_status}")
		if n, err2 := strconv.Atoi(strings.TrimSpace(out)); err == nil && err2 == nil {
			status = n
		}
		if k.endedWithin(300*time.Millisecond) || !k.quietFor(300*time.Millisecond) {
			if k.ended() {
				return
			}
			continue
		}
		k.mu.Lock()
		k.end(status)
		k.mu.Unlock()
		return
	}
}

// exits waits until process pid exits; false when it cannot be watched.
func exits(pid int) bool {
	ctx, stopWatching := context.WithCancel(context.Background())
	defer stopWatching()
	exited := platform.WatchExit(ctx, pid)
	if exited == nil {
		return false
	}
	<-exited
	return true
}

// endedWithin waits up to d for the job's end.
func (k *keeper) endedWithin(d time.Duration) bool {
	select {
	case <-k.endedCh:
		return true
	case <-time.After(d):
		return false
	}
}

func (k *keeper) ended() bool { return k.endedWithin(0) }

// quietFor reports whether the stream brought nothing for d.
func (k *keeper) quietFor(d time.Duration) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return time.Since(k.lastFed) >= d
}

// setJob makes the keeper the keeper of job id. Call with k.mu held, or
// before the keeper serves.
func (k *keeper) setJob(id markers.ID) {
	k.ID = id
	k.ext = markers.NewExtractor(id, outSink{k})
	k.split = newFrameSplitter(id, k.ext, errSink{k})
}

// forgetSpare removes the files of a spare that goes untaken (the
// shared shell ended): its fifo, and the record if it names this spare.
func (k *keeper) forgetSpare() {
	b := bridge.Bridge{Name: k.Session, RuntimeDir: k.RuntimeDir}
	tok := strings.TrimSuffix(strings.TrimPrefix(k.Socket, b.File(".spare-")), ".sock")
	os.Remove(spareFifo(b, tok))
	if rec, err := os.ReadFile(spareRecord(b)); err == nil && string(rec) == tok {
		os.Remove(spareRecord(b))
	}
}

// makeSpareOnStart makes a spare window for the next job once this one
// runs (spare.go).
func (k *keeper) makeSpareOnStart() {
	if k.Session == "" {
		return
	}
	select {
	case <-k.startedCh:
	case <-k.inputEnded:
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	k.mu.Lock()
	if k.gone { // the window closed as the job started: the session may be ending
		k.mu.Unlock()
		return
	}
	k.spareMaking = make(chan struct{})
	k.mu.Unlock()
	defer close(k.spareMaking)
	makeSpare(bridge.Bridge{Name: k.Session, RuntimeDir: k.RuntimeDir, Exe: exe})
}

// activate makes a spare's window job's: its name, ID, socket; then it
// moves the window into the bridge session while the job starts.
func (k *keeper) activate(w io.Writer, hexJSON string) {
	var act activation
	js, err := hex.DecodeString(hexJSON)
	if err == nil {
		err = json.Unmarshal(js, &act)
	}
	k.mu.Lock()
	switch {
	case err != nil || !markers.ID(act.ID).Valid() || ValidName(act.Name) != nil:
		err = errors.New("bad activation")
	case !k.Spare:
		err = errors.New("not a spare")
	default:
		err = os.Rename(k.Socket, act.Socket)
	}
	if err != nil {
		k.mu.Unlock()
		replyError(w, err.Error())
		return
	}
	k.Spare, k.Socket, k.Name, k.Command = false, act.Socket, act.Name, act.Command
	k.setJob(markers.ID(act.ID))
	k.mu.Unlock()
	go k.watchSupervisor()
	go k.moveIntoBridge()
	go func() { // a job that never comes: the window goes
		if !k.endedWithin(0) {
			select {
			case <-k.startedCh:
			case <-time.After(readyLimit):
				tmux.Run("kill-pane", "-t", k.Pane)
			}
		}
	}()
	fmt.Fprintf(w, "ok %s\n", k.Pane)
}

// moveIntoBridge moves the activated spare's window into the bridge
// session, behind the human's current window, as the job's.
func (k *keeper) moveIntoBridge() {
	k.moveErr = moveWindow(k)
	close(k.moved)
}

// moveWindow runs the tmux command of moveIntoBridge (tests replace it).
var moveWindow = moveWindowWithTmux

func moveWindowWithTmux(k *keeper) error {
	_, err := tmux.Run("move-window", "-d", "-a", "-s", k.Pane, "-t", "="+k.Session+":{end}",
		";", "rename-window", "-t", k.Pane, k.Name,
		";", "set-option", "-p", "-t", k.Pane, "remain-on-exit", "on",
		";", "set-option", "-p", "-t", k.Pane, "remain-on-exit-format", endedFormat(k.Name),
		";", "set-option", "-w", "-t", k.Pane, "@ptybridge_job", k.Name)
	return err
}

// answerStarted answers once the job runs (its START marker came) in its window
// in the bridge session: "running", or "ended STATUS" when it already
// ended.
func (k *keeper) answerStarted(w io.Writer) error {
	select {
	case <-k.startedCh:
	case <-time.After(readyLimit):
		return replyError(w, fmt.Sprintf("the job did not start within %v", readyLimit))
	}
	<-k.moved
	if k.moveErr != nil {
		return replyError(w, "moving the job's window into the bridge session: "+k.moveErr.Error())
	}
	k.mu.Lock()
	state, status := k.state, k.status
	k.mu.Unlock()
	if state == ended {
		_, err := fmt.Fprintf(w, "ended %d\n", status)
		return err
	}
	_, err := io.WriteString(w, "running\n")
	return err
}

// nudgeReaper makes sure tmux learns that the window's process ended.
// tmux built with libutempter (Debian's is) loses a SIGCHLD that comes
// while utempter's helper runs, which it does as the pane's terminal
// closes, at the very moment its process exits (tmux issue #311): the
// pane then stays without its exit status, and without the line that
// says the job ended, for ever. While the process is a zombie its parent
// has not reaped, the keeper nudges the parent (tmux) with SIGCHLD, as
// tmux does itself after utempter_add_record. Only after a job ended,
// and only while the zombie stays.
func nudgeReaper(pid int) {
	for range 500 { // 10 s at most
		time.Sleep(20 * time.Millisecond)
		p, err := platform.ReadProc(pid)
		if err != nil || p.State != 'Z' {
			return
		}
		if p.PPID > 1 {
			syscall.Kill(p.PPID, syscall.SIGCHLD)
		}
	}
}

func (k *keeper) acceptLoop(ln *relay.Listener) {
	relay.AcceptFromUs(ln, func(c *os.File) { go k.serve(c) })
}

// serve answers one client's requests until it hangs up.
func (k *keeper) serve(c *os.File) {
	defer c.Close()
	r := bufio.NewReaderSize(c, 4096)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			return
		}
		var answer error
		switch {
		case f[0] == "info" && len(f) == 1:
			answer = writeJSON(c, k.info())
		case f[0] == "read" && len(f) == 3:
			answer = k.read(c, f[1], f[2])
		case f[0] == "follow" && len(f) == 3:
			k.follow(c, r, f[1], f[2])
			return
		case f[0] == "send" && len(f) == 3:
			answer = k.send(c, f[1], f[2] == "1")
		case f[0] == "type" && len(f) == 2:
			answer = k.typeHex(c, f[1])
		case f[0] == "stop" && len(f) == 1:
			k.stop(c)
			return
		case f[0] == "close" && len(f) == 1:
			k.closeWindow(c)
			return
		case f[0] == "activate" && len(f) == 2:
			k.activate(c, f[1])
		case f[0] == "started" && len(f) == 1:
			answer = k.answerStarted(c)
		case f[0] == "discard" && len(f) == 1:
			tmux.Run("kill-pane", "-t", k.Pane)
			return
		default:
			answer = replyError(c, "unknown request")
		}
		if answer != nil {
			return
		}
	}
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func replyError(w io.Writer, msg string) error {
	_, err := fmt.Fprintf(w, "error %x\n", msg)
	return err
}

func (k *keeper) info() Info {
	k.mu.Lock()
	defer k.mu.Unlock()
	info := Info{Name: k.Name, Command: k.Command, Running: k.state != ended, Started: k.started,
		OutputBytes: k.out.Total(), StderrBytes: k.errOut.Total(), Pane: k.Pane, StoppedBy: k.stoppedBy, Waiters: k.waiters}
	end := time.Now()
	if k.state == ended {
		st, at := k.status, k.endedAt
		info.Status, info.Ended, end = &st, &at, at
	}
	if !k.started.IsZero() {
		info.Runtime = end.Sub(k.started).Seconds()
	}
	last := k.out
	if k.lastErr {
		last = k.errOut
	}
	info.LastLine = lastLine(last.Tail(4096))
	return info
}

// lastLine is the last line with text of raw output, as clean text.
func lastLine(raw []byte) string {
	lines := strings.Split(cleantext.String(string(raw)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if s := strings.TrimSpace(lines[i]); s != "" {
			return s
		}
	}
	return ""
}

func (k *keeper) buffer(stream string) (*Buffer, bool) {
	switch stream {
	case "out":
		return k.out, true
	case "err":
		return k.errOut, true
	}
	return nil, false
}

func (k *keeper) read(w io.Writer, stream, sinceText string) error {
	since, err := strconv.ParseInt(sinceText, 10, 64)
	buf, ok := k.buffer(stream)
	if err != nil || !ok {
		return replyError(w, "bad read request")
	}
	k.mu.Lock()
	segs := buf.Read(since)
	h := readHeader{Total: buf.Total(), Ended: k.state == ended}
	k.mu.Unlock()
	for _, s := range segs {
		h.Segments = append(h.Segments, segmentHead{s.Offset, len(s.Data)})
	}
	if err := writeJSON(w, h); err != nil {
		return err
	}
	for _, s := range segs {
		if _, err := w.Write(s.Data); err != nil {
			return err
		}
	}
	return nil
}

// follow sends the output from the given offsets on, and then what comes
// as it comes: a waiting client hears of a new line the moment the keeper
// reads it, never a polling interval later.
func (k *keeper) follow(c *os.File, r *bufio.Reader, outText, errText string) {
	outPos, err1 := strconv.ParseInt(outText, 10, 64)
	errPos, err2 := strconv.ParseInt(errText, 10, 64)
	if err1 != nil || err2 != nil {
		replyError(c, "bad follow request")
		return
	}
	hungUp := false
	go func() {
		io.Copy(io.Discard, r) // a follow is the last request: this is the hang-up
		k.mu.Lock()
		hungUp = true
		k.changed.Broadcast()
		k.mu.Unlock()
	}()
	k.mu.Lock()
	k.waiters++
	defer func() {
		k.waiters--
		k.mu.Unlock()
	}()
	if errPos < 0 {
		errPos = k.errOut.Total()
	}
	w := bufio.NewWriterSize(c, 64*1024)
	for {
		for !hungUp && !k.gone && k.state != ended && k.out.Total() <= outPos && k.errOut.Total() <= errPos {
			k.changed.Wait()
		}
		if hungUp {
			return
		}
		outSegs, errSegs := k.newSegments(k.out, &outPos), k.newSegments(k.errOut, &errPos)
		done, status, gone := k.state == ended, k.status, k.gone
		k.mu.Unlock()
		err := writeEvents(w, "out", outSegs)
		if err == nil {
			err = writeEvents(w, "err", errSegs)
		}
		if err == nil && done {
			_, err = fmt.Fprintf(w, "end %d\n", status)
		} else if err == nil && gone {
			_, err = fmt.Fprintf(w, "gone\n")
		}
		if err == nil {
			err = w.Flush()
		}
		k.mu.Lock()
		if err != nil || done || gone {
			return
		}
	}
}

// newSegments reads what buf got after *pos and moves *pos to its end.
// Call with k.mu held.
func (k *keeper) newSegments(buf *Buffer, pos *int64) []Segment {
	if buf.Total() <= *pos {
		return nil
	}
	segs := buf.Read(*pos)
	*pos = buf.Total()
	return segs
}

func writeEvents(w io.Writer, stream string, segs []Segment) error {
	for _, s := range segs {
		if len(s.Data) == 0 {
			continue
		}
		if _, err := fmt.Fprintf(w, "%s %d %d\n", stream, s.Offset, len(s.Data)); err != nil {
			return err
		}
		if _, err := w.Write(s.Data); err != nil {
			return err
		}
	}
	return nil
}

// typeKeys types keys into the window.
func (k *keeper) typeKeys(keys string) error {
	k.typing.Lock()
	defer k.typing.Unlock()
	_, err := io.WriteString(k.keys, keys)
	return err
}

func (k *keeper) typeHex(w io.Writer, hexKeys string) error {
	keys, err := hex.DecodeString(hexKeys)
	if err != nil {
		return replyError(w, "bad keys")
	}
	if err := k.typeKeys(string(keys)); err != nil {
		return replyError(w, "typing into the job's window: "+err.Error())
	}
	_, err = io.WriteString(w, "ok\n")
	return err
}

func (k *keeper) send(w io.Writer, hexText string, enter bool) error {
	text, err := hex.DecodeString(hexText)
	if err != nil {
		return replyError(w, "bad text")
	}
	k.mu.Lock()
	paste := k.tracker.Paste()
	k.mu.Unlock()
	if err := k.typeKeys(typedText(string(text), paste, enter)); err != nil {
		return replyError(w, "typing into the job's window: "+err.Error())
	}
	_, err = io.WriteString(w, "ok\n")
	return err
}

// Bracketed paste wraps a paste in these (xterm's, as tmux sends them).
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// typedText is text typed as tmux's paste-buffer (-p) types it, then
// Enter: newlines become "\r" (Enter), and when the program has turned
// bracketed paste on, the text is bracketed, so that its line editor takes
// several lines as one edit and a TAB as text. Nothing in the text can
// end the paste early: a paste-end sequence in it is dropped. No word is
// a key name: the text is typed as it is.
func typedText(text string, paste markers.PasteMode, enter bool) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\n", "\r")
	if paste == markers.PasteOn && text != "" {
		text = pasteStart + strings.ReplaceAll(text, pasteEnd, "") + pasteEnd
	}
	if enter {
		text += "\r"
	}
	return text
}

// Interrupt keys, typed into the window's input, where the terminal's
// line discipline turns them into SIGINT and SIGQUIT for the job's
// process group.
const (
	ctrlC         = "\x03"
	ctrlBackslash = "\x1c"
)

// stop runs the two-phase kill: Ctrl-C, then Ctrl-\ if the job still runs
// limits.KillGrace later, then SIGKILL to its process group (the
// supervisor sends it on SIGUSR1). The client hears the status and how the
// job stopped; then the window goes.
func (k *keeper) stop(w io.Writer) {
	how := ""
	k.mu.Lock()
	isRunning := k.state != ended
	k.mu.Unlock()
	switch {
	case !isRunning:
		how = "it had ended already"
	case k.interruptWith(func() { k.typeKeys(ctrlC) }):
		how = "Ctrl-C (SIGINT) stopped it"
	case k.interruptWith(func() { k.typeKeys(ctrlBackslash) }):
		how = "it ignored Ctrl-C; Ctrl-\\ (SIGQUIT) stopped it"
	case k.interruptWith(func() { syscall.Kill(k.PanePID, syscall.SIGUSR1) }):
		how = "it ignored Ctrl-C and Ctrl-\\; SIGKILL to its process group stopped it"
	default:
		syscall.Kill(k.PanePID, syscall.SIGKILL)
		how = "it outlived SIGKILL to its process group; its window's process was killed"
		k.mu.Lock()
		k.end(128 + int(syscall.SIGKILL))
		k.mu.Unlock()
	}
	k.mu.Lock()
	status := k.status
	if isRunning {
		k.stoppedBy = how
	}
	k.mu.Unlock()
	k.killWindow()
	fmt.Fprintf(w, "stopped %d %x\n", status, how)
}

// killWindow closes the job's window and waits (a little) until the
// keeper has seen its stream end and removed its socket.
func (k *keeper) killWindow() error {
	_, err := tmux.Run("kill-pane", "-t", k.Pane)
	if err != nil && !tmux.IsMissingSession(err) {
		return err
	}
	select {
	case <-k.inputEnded:
	case <-time.After(2 * time.Second):
	}
	return nil
}

// interruptWith does what may stop the job and waits up to
// limits.KillGrace for it to end.
func (k *keeper) interruptWith(do func()) bool {
	do()
	select {
	case <-k.endedCh:
		return true
	case <-time.After(limits.KillGrace):
		return false
	}
}

// closeWindow closes an ended job's window (a new job takes its name).
func (k *keeper) closeWindow(w io.Writer) {
	k.mu.Lock()
	isRunning := k.state != ended
	k.mu.Unlock()
	if isRunning {
		replyError(w, "the job is running")
		return
	}
	if err := k.killWindow(); err != nil {
		replyError(w, err.Error())
		return
	}
	io.WriteString(w, "ok\n")
}

// errNoKeeper: no keeper listens for that name.
var errNoKeeper = errors.New("no job by that name")
