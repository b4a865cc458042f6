package jobs

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// Stop stops the job (Ctrl-C, Ctrl-\ 3 s later, then SIGKILL to its process group), closes its
// window, keeps what it printed (kept.go) and returns its exit status. A job stopped already
// gives its status again.
func Stop(b bridge.Bridge, name string, notes io.Writer) (int, error) {
	c, info, err := connect(b, name)
	if errors.Is(err, errNoRelay) {
		if k := findKept(b, name); k != nil {
			return stoppedAlready(k, notes)
		}
		err = noSuchJob(b, name)
	}
	if err != nil {
		return 0, err
	}
	defer c.Close()
	rec := record(b, name)
	status, how, err := c.Stop()
	if err != nil {
		rec.abandon()
		return 0, relayFailed(name, err)
	}
	fmt.Fprintf(notes, "ptysend: job %s: %s; exit status %d; its window was closed%s\n", name, how, status, rec.keep(b, info, status, how))
	return stopStatus(name, status)
}

func stoppedAlready(k *keptJob, notes io.Writer) (int, error) {
	status := -1
	if k.Info.Status != nil {
		status = *k.Info.Status
	}
	fmt.Fprintf(notes, "ptysend: job %s was stopped already (%s); exit status %d; what it printed stays readable: ptysend --job-output %s\n",
		k.Info.Name, k.Info.StoppedBy, status, k.Info.Name)
	return stopStatus(k.Info.Name, status)
}

func stopStatus(name string, status int) (int, error) {
	if status < 0 {
		return 0, &failure.Error{
			Msg:  fmt.Sprintf("job %s is stopped, and its exit status was lost (its window's process was killed)", name),
			Hint: "nothing to do: the job no longer runs",
		}
	}
	return status, nil
}

// recording follows a job's output to the job's end, on a connection of its own opened before
// the stop begins: the relay that holds the output goes with the window, which the stop closes.
type recording struct {
	c        *relay.JobClient
	out, err keptStream
	lastErr  bool // stderr came last
	done     chan struct{}
}

// record starts recording job name's output; nil when its relay cannot be followed (its output
// then goes with its window).
func record(b bridge.Bridge, name string) *recording {
	c, _, err := connect(b, name) // Info was answered: the relay serves this connection
	if err != nil {
		return nil
	}
	if err := c.Follow(0, 0); err != nil {
		c.Close()
		return nil
	}
	r := &recording{c: c, done: make(chan struct{})}
	go r.follow()
	return r
}

func (r *recording) follow() {
	defer close(r.done)
	for {
		ev, err := r.c.Next()
		if err != nil {
			return
		}
		switch ev.Stream {
		case "out":
			r.out.add(ev.Offset, ev.Data, relay.OutputBound, relay.OutputHead)
			r.lastErr = false
		case "err":
			r.err.add(ev.Offset, ev.Data, relay.StderrBound, relay.StderrHead)
			r.lastErr = true
		default: // "ended", or "gone" when the job's status was lost
			return
		}
	}
}

// finish waits a little for the job's end to be recorded, after the stop.
func (r *recording) finish() {
	select {
	case <-r.done:
	case <-time.After(2 * time.Second):
	}
	r.c.Close()
	<-r.done
}

func (r *recording) abandon() {
	if r != nil {
		r.c.Close()
	}
}

// keep writes the stopped job's kept file from the recording, and says so for the note.
func (r *recording) keep(b bridge.Bridge, info relay.Info, status int, how string) string {
	if r == nil {
		return ""
	}
	r.finish()
	k := &keptJob{Info: r.stoppedInfo(info, status, how), Session: sessionIdentity(b), Out: r.out, Err: r.err}
	if k.Session == "" {
		return "" // the bridge session is gone, and its jobs with it
	}
	unlock, err := platform.LockDir(b.RuntimeDir) // Start's lock: no job takes the name meanwhile
	if err == nil {
		defer unlock()
		if c, now, cerr := connect(b, info.Name); cerr == nil {
			c.Close()
			if !now.Started.Equal(info.Started) {
				return "" // a new job took its name already
			}
		}
		k.Serial = startsSoFar(b)
		err = k.write(keptPath(b, info.Name))
	}
	if err != nil {
		return fmt.Sprintf("; what it printed could not be kept: %v", err)
	}
	pruneKept(b, k.Serial)
	return fmt.Sprintf("; what it printed stays readable with --job-output %s until a job of that name starts", info.Name)
}

// stoppedInfo is what --jobs says of the stopped job: info from before the stop, and its end.
func (r *recording) stoppedInfo(info relay.Info, status int, how string) relay.Info {
	if info.Running {
		now := time.Now()
		info.Ended = &now
	}
	info.Running, info.Status, info.StoppedBy = false, &status, how
	info.Runtime = info.Ended.Sub(info.Started).Seconds()
	// A line printed as the job stopped ("shutting down") is its last.
	if grewOut, grewErr := r.out.Total > info.OutputBytes, r.err.Total > info.StderrBytes; grewOut || grewErr {
		last := r.out
		if grewErr && (!grewOut || r.lastErr) {
			last = r.err
		}
		info.LastLine = lastLine(last)
	}
	info.OutputBytes, info.StderrBytes = r.out.Total, r.err.Total
	info.Pane, info.Waiters, info.FullScreen = "", 0, false
	return info
}

// lastLine is the last line with text of the stream's end, as clean text.
func lastLine(s keptStream) string {
	if len(s.Segs) == 0 {
		return ""
	}
	data := s.Segs[len(s.Segs)-1].Data
	lines := strings.Split(cleantext.String(string(data[max(0, len(data)-4096):])), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return strings.TrimRight(lines[i], " ")
		}
	}
	return ""
}
