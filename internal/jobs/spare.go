package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// A spare window lets --job return fast. Making a window is the slow part of a start: tmux
// forks the pane's process, then (Debian's tmux has libutempter) utempter's helper and waits
// for it to write utmp, 10 to 30 ms on a busy machine, before the supervisor and relay start.
// So once a job runs, its relay makes a spare in a hidden session, <bridge>-spare: the next
// --job moves it into the bridge session (one tmux command, by the relay) and hands its
// supervisor the job on a fifo. The hidden session's processes (the spare, an anchor window)
// exit with the shared shell, as jobs would not.

// The record holds the spare's token, which names its socket and fifo.
func spareRecord(b bridge.Bridge) string             { return b.File(".spare") }
func spareSocket(b bridge.Bridge, tok string) string { return b.File(".spare-" + tok + ".sock") }
func spareFifo(b bridge.Bridge, tok string) string   { return b.File(".spare-" + tok + ".fifo") }

// MakeSpare makes the bridge's spare window unless one exists. The record names it before its
// window is made, so that no other relay makes one too; a --job that finds it waits a moment
// for its relay, rather than make a window itself (which takes as long).
func MakeSpare(b bridge.Bridge) error {
	status, err := relay.QueryStatus(b.SocketPath())
	if err != nil {
		return fmt.Errorf("no shared shell to tie a spare window to: %w", err)
	}
	id, err := markers.NewID()
	if err != nil {
		return err
	}
	tok := string(id)
	fifo := spareFifo(b, tok)
	if claimed, err := claimSpare(b, tok); err != nil || !claimed {
		return err
	}
	session := b.Name + "-spare"
	target := "=" + session + ":{end}"
	pid := fmt.Sprint(status.PanePID)
	// history-limit before the windows are made: a pane's is fixed then.
	own := "=" + session + ":"
	args := []string{"new-session", "-d", "-s", session, "-x", "80", "-y", "24", "-c", "/", b.Exe, "--job-spare", "", "--job-spare-pid", pid,
		";", "set-option", "-t", own, "history-limit", fmt.Sprint(bridge.HistoryLimit),
		";", "set-option", "-t", own, "destroy-unattached", "off"}
	_, err = tmux.Run(args...)
	if err == nil || tmux.IsDuplicateSession(err) {
		job := relay.JobConfig{Spare: true, Session: b.Name, SpareMaker: spareMaker(b)}
		_, err = tmux.Run("new-window", "-d", "-a", "-t", target, "-c", "/", b.Exe, "--job-spare", fifo, "--job-spare-pid", pid,
			";", "pipe-pane", "-I", "-O", "-t", target, b.RelayCommand(spareSocket(b, tok), &job))
	}
	if err != nil {
		os.Remove(fifo)
		if unlock, lerr := platform.LockDir(b.RuntimeDir); lerr == nil {
			if rec, _ := os.ReadFile(spareRecord(b)); string(rec) == tok {
				os.Remove(spareRecord(b))
			}
			unlock()
		}
	}
	return err
}

// claimSpare records that the spare tok is on its way, unless another one
// is there or on its way (its fifo exists).
func claimSpare(b bridge.Bridge, tok string) (bool, error) {
	unlock, err := platform.LockDir(b.RuntimeDir)
	if err != nil {
		return false, err
	}
	defer unlock()
	if rec, err := os.ReadFile(spareRecord(b)); err == nil {
		if _, err := os.Stat(spareFifo(b, string(rec))); err == nil {
			return false, nil
		}
	}
	if err := syscall.Mkfifo(spareFifo(b, tok), 0o600); err != nil {
		return false, err
	}
	return true, os.WriteFile(spareRecord(b), []byte(tok), 0o600)
}

// takeSpare gives the bridge's spare window, if there is one, the job sp,
// and says its pane; none, with nothing changed that the slow way needs,
// when there is no spare. Call it with the start lock held.
func takeSpare(b bridge.Bridge, sp spec, socket, ready string) (pane string, err error) {
	rec, err := os.ReadFile(spareRecord(b))
	if err != nil {
		return "", nil
	}
	tok := string(rec)
	os.Remove(spareRecord(b)) // ours now, whatever comes of it
	fifo := spareFifo(b, tok)
	// Its relay started moments ago, or long ago; one gone removed the fifo.
	var c *relay.JobClient
	for deadline := time.Now().Add(2 * time.Second); ; time.Sleep(time.Millisecond) {
		if c, err = relay.DialJob(spareSocket(b, tok)); err == nil {
			break
		}
		if _, err := os.Stat(fifo); err != nil || time.Now().After(deadline) {
			os.Remove(fifo)
			return "", nil
		}
	}
	defer c.Close()
	// Its supervisor, which starts with the relay, must wait on the fifo.
	f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	for deadline := time.Now().Add(time.Second); errors.Is(err, syscall.ENXIO) && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
		f, err = os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0)
	}
	if err != nil {
		c.Discard()
		os.Remove(fifo)
		return "", nil
	}
	defer f.Close()
	if pane, err = c.Activate(string(sp.ID), sp.Name, shorten(sp.Command, 200), socket, ready); err != nil {
		return "", nil
	}
	// From here on the window is the job's: failures are the job's.
	js, _ := json.Marshal(sp)
	if _, err := f.Write(js); err != nil {
		return pane, fmt.Errorf("handing the job to its window: %w", err)
	}
	f.Close()
	os.Remove(fifo)
	return pane, nil
}

// RunSpare is the process of a spare window (with no fifo, of the anchor window): it
// supervises the job it gets on fifo, or exits with the shared shell.
func RunSpare(fifo string, sharedPID int) int {
	exited := platform.WatchExit(context.Background(), sharedPID)
	if exited == nil {
		return 0 // gone already
	}
	got := make(chan spec, 1)
	if fifo != "" {
		go func() {
			if sp, err := readSpec(fifo); err == nil && sp.ID.Valid() { // waits for ptysend --job
				got <- sp
			}
		}()
	}
	select {
	case <-exited:
		return 0
	case sp := <-got:
		return supervise(sp)
	}
}
