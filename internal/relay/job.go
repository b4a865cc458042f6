package relay

import (
	"fmt"
	"os"
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
	Ready   string // the fifo where ptysend --job waits for "ok" or "error ..."
	// Session and RuntimeDir are the bridge's.
	Session, RuntimeDir string
	Spare               bool
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
	stoppedBy        string
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
		go func() {
			if closedWithin(j.startedC, readyLimit) {
				tellReady(j.Ready, "ok")
			}
		}()
		go j.watchSupervisor()
	}
	go j.makeSpareOnStart()
	return j
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
		if j.state == starting {
			j.state, j.started = running, time.Now()
			close(j.startedC)
		}
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

// end records the job's end. Call with s.mu held.
func (j *job) end(status int) {
	if j.state == ended {
		return
	}
	if j.state == starting {
		j.started = time.Now()
		close(j.startedC)
	}
	j.state, j.status, j.endedAt = ended, status, time.Now()
	close(j.endedC)
	j.s.moved.Broadcast()
}

func (j *job) outcome() (done bool, status int) {
	j.s.mu.Lock()
	defer j.s.mu.Unlock()
	return j.state == ended, j.status
}

const readyLimit = 20 * time.Second // for a job to start

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
	if !j.s.waitForExit(j.s.cfg.PanePID) {
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
