package relay

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// A job's relay makes a spare window for the next job once its job runs;
// "activate" makes the spare's relay the next job's.

// makeSpareOnStart makes the spare off anyone's path: the relay waits for
// it only when its window closes (afterPaneGone).
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

// activate makes a spare's window the job's (its name, id, socket), and
// moves the window into the bridge session while the job starts.
func (j *job) activate(w io.Writer, id markers.ID, name, command, socket string) error {
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
	j.Spare, s.cfg.Socket, j.Name, j.ID, j.Command = false, socket, name, id, command
	s.mu.Unlock()
	go j.watchSupervisor()
	go func() {
		j.moveErr = moveIntoBridge(j)
		close(j.moved)
	}()
	go func() {
		if !closedWithin(j.startedC, readyLimit) { // a job that never comes: the window goes
			tmux.Run("kill-pane", "-t", s.cfg.PaneID)
		}
	}()
	return send(w, "ok", s.cfg.PaneID)
}

// moveIntoBridge moves the activated spare's window into the bridge
// session, behind the human's current window (tests replace it).
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

// answerStarted answers "running" or "ended STATUS" once the job runs in the bridge session.
func (j *job) answerStarted(w io.Writer) error {
	if !closedWithin(j.startedC, readyLimit) {
		return fmt.Errorf("the job did not start within %v", readyLimit)
	}
	<-j.moved
	if j.moveErr != nil {
		return fmt.Errorf("moving the job's window into the bridge session: %w", j.moveErr)
	}
	if done, status := j.outcome(); done {
		return send(w, "ended", status)
	}
	return send(w, "running")
}
