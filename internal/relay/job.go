package relay

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// A job window's relay keeps its job: the supervisor (internal/jobs) prints
// START, the output, stderr in R/r frames and END with the exit status, all
// marked with the job's id; the relay keeps output and stderr apart, bounded,
// and answers requests (jobserve.go). A spare's keeps nothing till activated.

// JobConfig is the job a window's relay keeps.
type JobConfig struct {
	Name    string
	ID      markers.ID
	Command string // shortened, for --jobs
	Ready   string // the fifo where ptysend --job waits for "ok" or "error ..." (a spare's comes with its job)
	Session string // the bridge's
	Spare   bool
	// SpareMaker makes a spare window for the next job once this one runs.
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

	state            jobState
	status           int
	started, endedAt time.Time
	out, err         *Buffer
	outCRLF, errCRLF crlfUndoer
	inFrame, lastErr bool // in a stderr frame; stderr came last
	waiters          int
	lastFed          time.Time
	startedC, endedC chan struct{}
	// moved is closed once the window is in the bridge session with its
	// options (at once for a window ptysend --job made there).
	moved   chan struct{}
	moveErr error
	spares  chan struct{} // closed once the spare this relay makes is made
}

func newJob(s *server, cfg JobConfig) *job {
	j := &job{s: s, JobConfig: cfg, out: NewBuffer(OutputBound, OutputHead), err: NewBuffer(StderrBound, StderrHead),
		startedC: make(chan struct{}), endedC: make(chan struct{}), moved: make(chan struct{})}
	if !cfg.Spare {
		close(j.moved)
		j.whenStarted(false)
	}
	go j.makeSpareOnStart()
	return j
}

// whenStarted watches the job's supervisor, and says on the Ready fifo once the job runs in the
// bridge session: "ok", or "error ...". An activated spare's window whose job does not come goes.
func (j *job) whenStarted(spare bool) {
	go j.watchSupervisor()
	go func() {
		if !closedWithin(j.startedC, ReadyLimit) {
			if spare {
				tmux.Run("kill-pane", "-t", j.s.cfg.PaneID)
			}
			return
		}
		<-j.moved
		msg := "ok"
		if j.moveErr != nil {
			msg = "error moving the job's window into the bridge session: " + j.moveErr.Error()
		}
		tellReady(j.Ready, msg)
	}()
}

// Bytes and Event hear the window's stream, with s.mu held.
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
	if j.Spare || e.ID != j.ID {
		return
	}
	switch e.Kind {
	case 'S':
		j.start()
	case 'R', 'r':
		j.inFrame = e.Kind == 'R'
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

// start records the job's start, unless it did already. Call with s.mu held.
func (j *job) start() {
	if j.state == starting {
		j.state, j.started = running, time.Now()
		close(j.startedC)
	}
}

// end records the job's end (its start too, if none came). Call with s.mu held.
func (j *job) end(status int) {
	if j.state == ended {
		return
	}
	j.start()
	j.state, j.status, j.endedAt = ended, status, time.Now()
	close(j.endedC)
	j.s.moved.Broadcast()
}

func (j *job) hasEnded() bool {
	j.s.mu.Lock()
	defer j.s.mu.Unlock()
	return j.state == ended
}

const ReadyLimit = 20 * time.Second // for a job to start

// tellReady writes msg to the ready fifo, if ptysend still waits there.
func tellReady(fifo, msg string) {
	if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Write([]byte(msg + "\n"))
		f.Close()
	}
}

// watchSupervisor ends the job of a supervisor killed before its END
// marker, with the status tmux saw, if any. The stream can lag well behind
// the exit (tmux relays a big output at its own pace, and blocks a second
// and more while libutempter updates utmp as the terminal closes): only a
// stream quiet after the exit and after an answer from tmux tells no END comes.
func (j *job) watchSupervisor() {
	if !j.s.waitForExit() {
		return
	}
	go nudgeReaper(j.s.cfg.PanePID)
	for !closedWithin(j.endedC, 0) {
		if closedWithin(j.endedC, 200*time.Millisecond) || !j.quietFor(time.Second) {
			continue
		}
		status := -1
		if out, err := tmux.Run("display-message", "-p", "-t", j.s.cfg.PaneID, "#{pane_dead_status}"); err == nil {
			fmt.Sscan(out, &status)
		}
		if closedWithin(j.endedC, 300*time.Millisecond) || !j.quietFor(300*time.Millisecond) {
			continue
		}
		j.s.mu.Lock()
		j.end(status)
		j.s.mu.Unlock()
		return
	}
}

func (j *job) quietFor(d time.Duration) bool {
	j.s.mu.Lock()
	defer j.s.mu.Unlock()
	return time.Since(j.lastFed) >= d
}

// nudgeReaper sends tmux SIGCHLD while the window's process is an unreaped
// zombie: tmux built with libutempter (Debian's) loses a SIGCHLD that comes
// while utempter's helper runs, as it does when the terminal closes (tmux
// issue #311), and the pane would never get its exit status. tmux does the
// same itself after utempter_add_record.
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

// makeSpareOnStart makes a spare window for the next job once this one runs
// ("activate" makes the spare's relay the next job's), off anyone's path:
// the relay waits for it only when its window closes (afterPaneGone).
func (j *job) makeSpareOnStart() {
	if len(j.SpareMaker) == 0 {
		return
	}
	select {
	case <-j.startedC:
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

// afterPaneGone gives followers time to hear that the window is gone, and
// a stop or close time to be answered; a spare on its way is finished, not
// left half made.
func (j *job) afterPaneGone() {
	time.Sleep(100 * time.Millisecond)
	j.s.mu.Lock()
	making := j.spares
	j.s.mu.Unlock()
	if making != nil {
		closedWithin(making, 15*time.Second)
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

// activate makes a spare's window the job's (its name, id, socket, ready
// fifo), and moves the window into the bridge session while the job starts.
func (j *job) activate(w io.Writer, id markers.ID, name, command, socket, ready string) error {
	s := j.s
	s.mu.Lock()
	var err error
	switch {
	case !id.Valid() || name == "":
		err = errors.New("bad activation")
	case !j.Spare:
		err = errors.New("not a spare")
	default:
		err = os.Rename(s.cfg.Socket, socket)
	}
	if err != nil {
		s.mu.Unlock()
		return err
	}
	j.Spare, s.cfg.Socket, j.Name, j.ID, j.Command, j.Ready = false, socket, name, id, command, ready
	s.mu.Unlock()
	go func() {
		j.moveErr = moveIntoBridge(j)
		close(j.moved)
	}()
	j.whenStarted(true)
	return send(w, "ok", s.cfg.PaneID)
}

// moveIntoBridge moves the activated spare's window into the bridge
// session, behind the human's current window (tests replace it).
var moveIntoBridge = (*job).moveWithTmux

func (j *job) moveWithTmux() error {
	pane := j.s.cfg.PaneID
	_, err := tmux.Run(append([]string{"move-window", "-d", "-a", "-s", pane, "-t", "=" + j.Session + ":{end}",
		";", "rename-window", "-t", pane, j.Name}, WindowOptions(pane, j.Name)...)...)
	return err
}

// WindowOptions are the tmux commands that make target job name's window: it stays once the job
// ended, and says so.
func WindowOptions(target, name string) []string {
	return []string{";", "set-option", "-p", "-t", target, "remain-on-exit", "on",
		";", "set-option", "-p", "-t", target, "remain-on-exit-format",
		fmt.Sprintf("Job %s has ended (exit status #{pane_dead_status}): prefix & closes this window", name),
		";", "set-option", "-w", "-t", target, "@ptybridge_job", name}
}
