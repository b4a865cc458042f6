package jobs

import (
	"fmt"
	"io"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// Stop stops the job (Ctrl-C, Ctrl-\ 3 s later, then SIGKILL to its process group), closes its
// window, keeps what it printed (kept.go) and returns its exit status. A job stopped already
// gives its status again.
func Stop(b bridge.Bridge, name string, notes io.Writer) (int, error) {
	c, k, _, err := find(b, name)
	if err != nil {
		return 0, err
	}
	if c == nil {
		fmt.Fprintf(notes, "ptysend: job %s was stopped already (%s); exit status %d; what it printed stays readable: ptysend --job-output %s\n",
			name, k.Info.StoppedBy, exitStatus(k.Info), name)
		return stopStatus(name, exitStatus(k.Info))
	}
	defer c.Close()
	// The relay answers with the ended job while its window is there: what it held goes with it.
	if k, err = c.Stop(); err != nil {
		return 0, relayFailed(name, err)
	}
	status := exitStatus(k.Info)
	fmt.Fprintf(notes, "ptysend: job %s: %s; exit status %d; its window was closed%s\n", name, k.Info.StoppedBy, status, keep(b, k))
	return stopStatus(name, status)
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

// keep writes the stopped job's kept file, and says so for the note.
func keep(b bridge.Bridge, k *relay.Kept) string {
	if k.Session = sessionIdentity(b); k.Session == "" {
		return "" // the bridge session is gone, and its jobs with it
	}
	name := k.Info.Name
	unlock, err := platform.LockDir(b.RuntimeDir) // Start's lock: no job takes the name meanwhile
	if err == nil {
		defer unlock()
		if c, now, cerr := connect(b, name); cerr == nil {
			c.Close()
			if !now.Started.Equal(k.Info.Started) {
				return "" // a new job took its name already
			}
		}
		k.Serial = startsSoFar(b)
		err = k.WriteFile(keptPath(b, name))
	}
	if err != nil {
		return fmt.Sprintf("; what it printed could not be kept: %v", err)
	}
	pruneKept(b, k.Serial)
	return fmt.Sprintf("; what it printed stays readable with --job-output %s until a job of that name starts", name)
}
