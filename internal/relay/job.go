package relay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// A job window's relay keeps its job: the job's supervisor (the window's
// process, internal/jobs) prints START, the job's output, its stderr in
// R/r frames, and END with the exit status, all marked with the job's id.
// The relay keeps output and stderr apart, in memory and bounded (Buffer),
// records the status, types into the window, and answers the job modes:
//
//	info               -> job NAME COMMAND RUNNING STATUS STARTED ENDED OUT ERR LAST PANE STOPPED WAITERS
//	read STREAM SINCE  -> total TOTAL ENDED, data STREAM OFFSET LENGTH BYTES..., end
//	follow OUT ERR     -> data ... as it comes, then "ended STATUS" or "gone"   (ERR -1: from now on)
//	send TEXT ENTER    -> ok          stop -> stopped STATUS HOW      close -> ok (an ended job's window goes)
//	activate ID NAME COMMAND SOCKET -> ok PANE     started -> running | ended STATUS     discard
//
// A job's output lives as long as its window; the relay exits when the
// window closes. A spare window's relay (spare.go in internal/jobs) keeps
// nothing until "activate" makes it a job's.

// JobConfig is the job a window's relay keeps.
type JobConfig struct {
	Name    string
	ID      markers.ID
	Command string // shortened, for --jobs
	// Ready is the fifo on which ptysend --job waits to hear that the job
	// runs ("ok") or could not start ("error ...").
	Ready string
	// Session and RuntimeDir are the bridge's: once the job runs, the
	// relay makes a spare window for the next one.
	Session, RuntimeDir string
	Spare               bool
	// SpareMaker is the command that makes a spare window for the next
	// job (ptysend in a hidden mode, internal/jobs), run once the job
	// runs; none when empty.
	SpareMaker []string
}

type jobState int

const (
	starting jobState = iota // no START marker yet
	running
	ended
)

type job struct {
	s *server
	JobConfig
	spare bool

	state             jobState
	status            int
	started, endedAt  time.Time
	out, err          *Buffer
	outCRLF, errCRLF  crlfUndoer
	inFrame, lastErr  bool
	stoppedBy         string
	waiters           int
	lastFed           time.Time
	startedCh, endedC chan struct{}
	// moved is closed once the window is in the bridge session with its
	// options (at once for a window ptysend --job made).
	moved   chan struct{}
	moveErr error
	spares  chan struct{} // closed once the spare this relay makes is made
}

func newJob(s *server, cfg JobConfig) *job {
	j := &job{s: s, JobConfig: cfg, spare: cfg.Spare, out: NewBuffer(OutputBound, OutputHead), err: NewBuffer(StderrBound, StderrHead),
		startedCh: make(chan struct{}), endedC: make(chan struct{}), moved: make(chan struct{})}
	if !cfg.Spare {
		close(j.moved) // ptysend made the window in the bridge session
		go j.tellReadyOnStart()
		go j.watchSupervisor()
	}
	go j.makeSpareOnStart()
	return j
}

// Bytes and Event hear the window's stream (markers.EventSink), with
// s.mu held.
func (j *job) Bytes(b []byte) {
	j.lastFed = time.Now()
	switch {
	case j.state != running:
	case j.inFrame:
		j.err.Write(j.errCRLF.undo(b))
		j.lastErr = true
	default:
		j.out.Write(j.outCRLF.undo(b))
		j.lastErr = false
	}
}

func (j *job) Event(e markers.Event) {
	j.lastFed = time.Now()
	if j.spare || e.ID != j.ID {
		return
	}
	switch e.Kind {
	case 'S':
		if j.state == starting {
			j.state, j.started = running, time.Now()
			close(j.startedCh)
		}
	case 'R':
		j.inFrame = true
	case 'r':
		j.inFrame = false
	case 'E':
		if j.state != running {
			return
		}
		j.end(e.Status)
		// The supervisor waits for this before it exits (internal/jobs),
		// and it must not exit before its window has remain-on-exit.
		if pid := j.s.cfg.PanePID; pid > 0 {
			go func() {
				<-j.moved
				syscall.Kill(pid, syscall.SIGUSR2)
			}()
		}
	}
}

// end records the job's end. Call with s.mu held.
func (j *job) end(status int) {
	if j.state == ended {
		return
	}
	if j.state == starting {
		j.started = time.Now()
		close(j.startedCh)
	}
	j.state, j.status, j.endedAt = ended, status, time.Now()
	close(j.endedC)
	j.s.moved.Broadcast()
}

// readyLimit bounds the wait for a job to start.
const readyLimit = 20 * time.Second

// tellReadyOnStart tells ptysend --job, on the ready fifo, that the job
// runs: its START marker came.
func (j *job) tellReadyOnStart() {
	select {
	case <-j.startedCh:
		tellReady(j.Ready, "ok")
	case <-time.After(readyLimit):
	}
}

// tellReady writes msg to the ready fifo, if ptysend still waits there.
func tellReady(fifo, msg string) {
	if fifo == "" {
		return
	}
	f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
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
func (j *job) watchSupervisor() {
	exited := platform.WatchExit(j.s.ctx, j.s.cfg.PanePID)
	if exited == nil {
		return
	}
	select {
	case <-exited:
	case <-j.s.ctx.Done():
		return
	}
	go nudgeReaper(j.s.cfg.PanePID)
	for {
		if j.endedWithin(200*time.Millisecond) || !j.quietFor(time.Second) {
			if j.endedWithin(0) {
				return
			}
			continue
		}
		status := -1
		if out, err := tmux.Run("display-message", "-p", "-t", j.s.cfg.PaneID, "#{pane_dead_status}"); err == nil {
			fmt.Sscan(out, &status)
		}
		if j.endedWithin(300*time.Millisecond) || !j.quietFor(300*time.Millisecond) {
			if j.endedWithin(0) {
				return
			}
			continue
		}
		j.s.mu.Lock()
		j.end(status)
		j.s.mu.Unlock()
		return
	}
}

func (j *job) endedWithin(d time.Duration) bool {
	select {
	case <-j.endedC:
		return true
	case <-time.After(d):
		return false
	}
}

func (j *job) quietFor(d time.Duration) bool {
	j.s.mu.Lock()
	defer j.s.mu.Unlock()
	return time.Since(j.lastFed) >= d
}

// nudgeReaper makes sure tmux learns that the window's process ended.
// tmux built with libutempter (Debian's is) loses a SIGCHLD that comes
// while utempter's helper runs, which it does as the pane's terminal
// closes, at the very moment its process exits (tmux issue #311): the
// pane then stays without its exit status, and without the line that
// says the job ended, for ever. While the process is a zombie its parent
// has not reaped, the relay nudges the parent (tmux) with SIGCHLD, as
// tmux does itself after utempter_add_record.
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

// makeSpareOnStart makes a spare window for the next job once this one
// runs: off anyone's path, the relay waits for it only when its window
// closes (afterPaneGone).
func (j *job) makeSpareOnStart() {
	if len(j.SpareMaker) == 0 {
		return
	}
	select {
	case <-j.startedCh:
	case <-j.s.ctx.Done():
		return
	}
	j.s.mu.Lock()
	if j.s.gone { // the window closed as the job started: the session may be ending
		j.s.mu.Unlock()
		return
	}
	j.spares = make(chan struct{})
	j.s.mu.Unlock()
	defer close(j.spares)
	exec.Command(j.SpareMaker[0], j.SpareMaker[1:]...).Run()
}

// afterPaneGone lets followers hear that the window is gone, and a stop
// or close be answered; a spare window on its way is finished, not left
// half made.
func (j *job) afterPaneGone() {
	time.Sleep(100 * time.Millisecond)
	j.s.mu.Lock()
	making := j.spares
	j.s.mu.Unlock()
	if making != nil {
		select {
		case <-making:
		case <-time.After(15 * time.Second):
		}
	}
}

// forgetSpare removes the files of a spare that goes untaken (the shared
// shell ended): its fifo, and the record if it names this spare. The
// names are internal/jobs' (spare.go): SOCKET is <session>.spare-TOKEN.sock.
func (j *job) forgetSpare() {
	base := strings.TrimSuffix(j.s.cfg.Socket, ".sock")
	tok := base[strings.LastIndex(base, ".spare-")+len(".spare-"):]
	record := strings.TrimSuffix(base, ".spare-"+tok) + ".spare"
	os.Remove(base + ".fifo")
	if rec, err := os.ReadFile(record); err == nil && string(rec) == tok {
		os.Remove(record)
	}
}

// serve answers one client's requests until it hangs up.
func (j *job) serve(c *os.File, r *bufio.Reader, m message) {
	for {
		c.SetDeadline(time.Time{})
		if err := j.answer(c, r, m); err != nil {
			if !errors.Is(err, errLast) {
				reply(c, appendMessage(nil, "error", err.Error()))
			}
			return
		}
		var err error
		if m, err = readMessage(r); err != nil {
			return
		}
	}
}

// errLast: the request was a connection's last.
var errLast = errors.New("the last request")

// answer answers one request.
func (j *job) answer(c *os.File, r *bufio.Reader, m message) error {
	switch verb := m.verb(); {
	case verb == "info" && m.fieldCount(0):
		return j.info(c)
	case verb == "read" && m.fieldCount(2):
		stream, since := m.field(1), m.int64(2)
		if m.err != nil {
			return m.err
		}
		return j.read(c, stream, since)
	case verb == "follow" && m.fieldCount(2):
		out, err := m.int64(1), m.int64(2)
		if m.err != nil {
			return m.err
		}
		j.follow(c, r, out, err)
		return errLast
	case verb == "send" && m.fieldCount(2):
		text, enter := m.text(1), m.bool(2)
		if m.err != nil {
			return m.err
		}
		return j.send(c, text, enter)
	case verb == "stop":
		j.stop(c)
		return errLast
	case verb == "close":
		j.closeWindow(c)
		return errLast
	case verb == "activate" && m.fieldCount(4):
		id, name, command, socket := markers.ID(m.text(1)), m.text(2), m.text(3), m.text(4)
		if m.err != nil {
			return m.err
		}
		return j.activate(c, id, name, command, socket)
	case verb == "started":
		return j.answerStarted(c)
	case verb == "discard":
		tmux.Run("kill-pane", "-t", j.s.cfg.PaneID)
		return errLast
	}
	return fmt.Errorf("bad request %q", strings.Join(m.words, " "))
}

func reply(w io.Writer, b []byte) error {
	_, err := w.Write(b)
	return err
}

// Info is what a job's relay says about the job, and what --jobs --json
// prints.
type Info struct {
	Name    string `json:"name"`
	Command string `json:"command"`
	Running bool   `json:"running"`
	// Status is the job's exit status once it ended; -1 when the job's
	// window lost it (its supervisor was killed).
	Status      *int       `json:"exit_status"`
	Started     time.Time  `json:"started"`
	Ended       *time.Time `json:"ended,omitempty"`
	Runtime     float64    `json:"runtime_seconds"`
	OutputBytes int64      `json:"output_bytes"`
	StderrBytes int64      `json:"stderr_bytes"`
	LastLine    string     `json:"last_line"`
	Pane        string     `json:"pane"`
	// StoppedBy says how --job-stop stopped it, if it did.
	StoppedBy string `json:"stopped_by,omitempty"`
	Waiters   int    `json:"waiters"`
}

func (j *job) info(w io.Writer) error {
	j.s.mu.Lock()
	last := j.out
	if j.lastErr {
		last = j.err
	}
	b := appendMessage(nil, "job", j.Name, j.Command, j.state == ended, j.status, j.started, j.endedAt,
		j.out.Total(), j.err.Total(), lastLine(last.Tail(4096)), j.s.cfg.PaneID, j.stoppedBy, j.waiters)
	j.s.mu.Unlock()
	return reply(w, b)
}

func parseInfo(m *message) Info {
	info := Info{Name: m.text(1), Command: m.text(2), Running: !m.bool(3), Started: m.time(5), OutputBytes: m.int64(7),
		StderrBytes: m.int64(8), LastLine: m.text(9), Pane: m.text(10), StoppedBy: m.text(11), Waiters: m.int(12)}
	end := time.Now()
	if !info.Running {
		status, at := m.int(4), m.time(6)
		info.Status, info.Ended, end = &status, &at, at
	}
	if !info.Started.IsZero() {
		info.Runtime = end.Sub(info.Started).Seconds()
	}
	return info
}

// lastLine is the last line with text of the output, as clean text.
func lastLine(out []byte) string {
	lines := strings.Split(cleantext.String(string(out)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if s := strings.TrimSpace(lines[i]); s != "" {
			return s
		}
	}
	return ""
}

func (j *job) buffer(stream string) (*Buffer, error) {
	switch stream {
	case "out":
		return j.out, nil
	case "err":
		return j.err, nil
	}
	return nil, errors.New("no such stream")
}

func (j *job) read(w io.Writer, stream string, since int64) error {
	buf, err := j.buffer(stream)
	if err != nil {
		return err
	}
	j.s.mu.Lock()
	b := appendMessage(nil, "total", buf.Total(), j.state == ended)
	for _, seg := range buf.Read(since) {
		b = appendData(b, stream, seg.Offset, seg.Data)
	}
	j.s.mu.Unlock()
	return reply(w, appendMessage(b, "end"))
}

// follow sends the output from the given offsets on (errPos -1: stderr
// from now on), then what comes as it comes: a waiting client hears of a
// new line the moment the relay reads it, never a polling interval later.
func (j *job) follow(c *os.File, r *bufio.Reader, outPos, errPos int64) {
	hungUp := false
	go func() {
		io.Copy(io.Discard, r) // a follow is the last request: this is the hang-up
		j.s.mu.Lock()
		hungUp = true
		j.s.moved.Broadcast()
		j.s.mu.Unlock()
	}()
	s := j.s
	s.mu.Lock()
	j.waiters++
	defer func() {
		j.waiters--
		s.mu.Unlock()
	}()
	if errPos < 0 {
		errPos = j.err.Total()
	}
	for {
		for !hungUp && !s.gone && j.state != ended && j.out.Total() <= outPos && j.err.Total() <= errPos {
			s.moved.Wait()
		}
		if hungUp {
			return
		}
		b := appendNew(nil, "out", j.out, &outPos)
		b = appendNew(b, "err", j.err, &errPos)
		done, gone := j.state == ended, s.gone
		switch {
		case done:
			b = appendMessage(b, "ended", j.status)
		case gone:
			b = appendMessage(b, "gone")
		}
		s.mu.Unlock()
		err := reply(c, b)
		s.mu.Lock()
		if err != nil || done || gone {
			return
		}
	}
}

// appendNew appends what buf got after *pos, and moves *pos to its end.
func appendNew(b []byte, stream string, buf *Buffer, pos *int64) []byte {
	if buf.Total() <= *pos {
		return b
	}
	for _, seg := range buf.Read(*pos) {
		if len(seg.Data) > 0 {
			b = appendData(b, stream, seg.Offset, seg.Data)
		}
	}
	*pos = buf.Total()
	return b
}

// Bracketed paste wraps a paste in these (xterm's, as tmux sends them).
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

func (j *job) send(w io.Writer, text string, enter bool) error {
	j.s.mu.Lock()
	paste := j.s.tracker.Paste()
	j.s.mu.Unlock()
	if err := j.s.typeKeys([]byte(TypedText(text, paste, enter))); err != nil {
		return fmt.Errorf("typing into the job's window: %w", err)
	}
	return reply(w, appendMessage(nil, "ok"))
}

// TypedText is text typed as tmux's paste-buffer (-p) types it, then
// Enter: newlines become "\r" (Enter), and when the program has turned
// bracketed paste on, the text is bracketed, so that its line editor takes
// several lines as one edit and a TAB as text. Nothing in the text can
// end the paste early: a paste-end sequence in it is dropped. No word is
// a key name: the text is typed as it is.
func TypedText(text string, paste cleantext.Mode, enter bool) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\n", "\r")
	if paste == cleantext.On && text != "" {
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

// killGrace is how long each phase of a job's stop waits for it to end.
const killGrace = 3 * time.Second

// stop runs the two-phase kill: Ctrl-C, then Ctrl-\ if the job still runs
// killGrace later, then SIGKILL to its process group (the supervisor
// sends it on SIGUSR1). The client hears the status and how the job
// stopped; then the window goes.
func (j *job) stop(w io.Writer) {
	j.s.mu.Lock()
	isRunning := j.state != ended
	j.s.mu.Unlock()
	pid := j.s.cfg.PanePID
	how := ""
	switch {
	case !isRunning:
		how = "it had ended already"
	case j.interruptWith(func() { j.s.typeKeys([]byte(ctrlC)) }):
		how = "Ctrl-C (SIGINT) stopped it"
	case j.interruptWith(func() { j.s.typeKeys([]byte(ctrlBackslash)) }):
		how = "it ignored Ctrl-C; Ctrl-\\ (SIGQUIT) stopped it"
	case j.interruptWith(func() { syscall.Kill(pid, syscall.SIGUSR1) }):
		how = "it ignored Ctrl-C and Ctrl-\\; SIGKILL to its process group stopped it"
	default:
		syscall.Kill(pid, syscall.SIGKILL)
		how = "it outlived SIGKILL to its process group; its window's process was killed"
		j.s.mu.Lock()
		j.end(128 + int(syscall.SIGKILL))
		j.s.mu.Unlock()
	}
	j.s.mu.Lock()
	status := j.status
	if isRunning {
		j.stoppedBy = how
	}
	j.s.mu.Unlock()
	j.killWindow()
	reply(w, appendMessage(nil, "stopped", status, how))
}

// killWindow closes the job's window and waits (a little) until the relay
// has seen its stream end.
func (j *job) killWindow() error {
	if _, err := tmux.Run("kill-pane", "-t", j.s.cfg.PaneID); err != nil && !tmux.IsMissingSession(err) {
		return err
	}
	select {
	case <-j.s.paneGone:
	case <-time.After(2 * time.Second):
	}
	return nil
}

// interruptWith does what may stop the job and waits up to killGrace for
// it to end.
func (j *job) interruptWith(do func()) bool {
	do()
	return j.endedWithin(killGrace)
}

// closeWindow closes an ended job's window (a new job takes its name).
func (j *job) closeWindow(w io.Writer) {
	j.s.mu.Lock()
	isRunning := j.state != ended
	j.s.mu.Unlock()
	if isRunning {
		reply(w, appendMessage(nil, "error", "the job is running"))
		return
	}
	if err := j.killWindow(); err != nil {
		reply(w, appendMessage(nil, "error", err.Error()))
		return
	}
	reply(w, appendMessage(nil, "ok"))
}

// activate makes a spare's window the job's: its name, id, socket; then it
// moves the window into the bridge session while the job starts.
func (j *job) activate(w io.Writer, id markers.ID, name, command, socket string) error {
	s := j.s
	s.mu.Lock()
	var err error
	switch {
	case !id.Valid() || name == "":
		err = errors.New("bad activation")
	case !j.spare:
		err = errors.New("not a spare")
	default:
		err = os.Rename(s.cfg.Socket, socket)
	}
	if err != nil {
		s.mu.Unlock()
		return err
	}
	j.spare, s.cfg.Socket, j.Name, j.ID, j.Command = false, socket, name, id, command
	s.mu.Unlock()
	go j.watchSupervisor()
	go func() {
		j.moveErr = moveIntoBridge(j)
		close(j.moved)
	}()
	go func() { // a job that never comes: the window goes
		select {
		case <-j.startedCh:
		case <-time.After(readyLimit):
			tmux.Run("kill-pane", "-t", s.cfg.PaneID)
		}
	}()
	return reply(w, appendMessage(nil, "ok", s.cfg.PaneID))
}

// moveIntoBridge moves the activated spare's window into the bridge
// session, behind the human's current window, as the job's (tests
// replace it).
var moveIntoBridge = (*job).moveWithTmux

func (j *job) moveWithTmux() error {
	pane := j.s.cfg.PaneID
	_, err := tmux.Run("move-window", "-d", "-a", "-s", pane, "-t", "="+j.Session+":{end}",
		";", "rename-window", "-t", pane, j.Name,
		";", "set-option", "-p", "-t", pane, "remain-on-exit", "on",
		";", "set-option", "-p", "-t", pane, "remain-on-exit-format", EndedFormat(j.Name),
		";", "set-option", "-w", "-t", pane, "@ptybridge_job", j.Name)
	return err
}

// EndedFormat is what a job's window shows once the job ended.
func EndedFormat(name string) string {
	return fmt.Sprintf("Job %s has ended (exit status #{pane_dead_status}): prefix & closes this window", name)
}

// answerStarted answers once the job runs (its START marker came) in its
// window in the bridge session: "running", or "ended STATUS".
func (j *job) answerStarted(w io.Writer) error {
	select {
	case <-j.startedCh:
	case <-time.After(readyLimit):
		return fmt.Errorf("the job did not start within %v", readyLimit)
	}
	<-j.moved
	if j.moveErr != nil {
		return fmt.Errorf("moving the job's window into the bridge session: %w", j.moveErr)
	}
	j.s.mu.Lock()
	state, status := j.state, j.status
	j.s.mu.Unlock()
	if state == ended {
		return reply(w, appendMessage(nil, "ended", status))
	}
	return reply(w, appendMessage(nil, "running"))
}
