package jobs

import (
	"fmt"
	"io"
	"strings"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/human"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// Stop stops the job with the two-phase kill (Ctrl-C, Ctrl-\ 3 s later,
// then SIGKILL to its process group) and returns its exit status; its
// window goes. A job that had ended gives its status, and its window goes
// too.
func Stop(b bridge.Bridge, name string, notes io.Writer) (int, error) {
	c, err := open(b, name)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	status, how, err := c.Stop()
	if err != nil {
		return 0, relayFailed(name, err)
	}
	fmt.Fprintf(notes, "ptysend: job %s: %s; exit status %d; its window was closed\n", name, how, status)
	if status < 0 {
		return 0, &failure.Error{
			Msg:  fmt.Sprintf("job %s is stopped, and its exit status was lost (its window's process was killed)", name),
			Hint: "nothing to do: the job no longer runs",
		}
	}
	return status, nil
}

// runningJob connects to a job that runs, for the modes that type into its
// window: an ended job's window takes no keys.
func runningJob(b bridge.Bridge, name string) (*relay.JobClient, relay.Info, error) {
	c, err := open(b, name)
	if err != nil {
		return nil, relay.Info{}, err
	}
	info, err := c.Info()
	if err != nil {
		c.Close()
		return nil, info, relayFailed(name, err)
	}
	if !info.Running {
		c.Close()
		return nil, info, &failure.Error{
			Msg:  fmt.Sprintf("job %s has ended (%s), so nothing was typed", name, stateText(info)),
			Hint: "ptysend --job-output " + name + " shows what it printed; start it again with ptysend --job " + name + " -- WORDS",
		}
	}
	return c, info, nil
}

// Send types text into the job's window, literally (no word is read as a
// key name), then Enter unless noEnter. Several lines arrive as one
// bracketed paste when the job's program asked for one; each line as if
// typed otherwise.
func Send(b bridge.Bridge, name, text string, enter bool) (int, error) {
	c, info, err := runningJob(b, name)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if err := refuseCopyMode(b, name, info.Pane); err != nil {
		return 0, err
	}
	if err := c.Send(text, enter); err != nil {
		return 0, relayFailed(name, err)
	}
	return 0, nil
}

// Keys sends tmux key names (C-c, Up, Enter, q, G) to the job's window
// with send-keys.
func Keys(b bridge.Bridge, name string, keys []string) (int, error) {
	c, info, err := runningJob(b, name)
	if err != nil {
		return 0, err
	}
	c.Close()
	if err := refuseCopyMode(b, name, info.Pane); err != nil {
		return 0, err
	}
	if _, err := tmux.Run(append([]string{"send-keys", "-t", info.Pane}, keys...)...); err != nil {
		return 0, &failure.Error{
			Msg:  fmt.Sprintf("sending keys to job %s: %v", name, err),
			Hint: "give tmux key names, e.g. C-c, Up, Enter, q; text goes with --job-send",
		}
	}
	return 0, nil
}

// refuseCopyMode refuses to type into a job's window while the human
// scrolls back in it: keys sent with send-keys would be copy-mode
// commands, and typed ones would drift their view. tmux is asked: a
// job's modes are off the path of every call.
func refuseCopyMode(b bridge.Bridge, name, pane string) error {
	if mode, err := tmux.Run("display-message", "-p", "-t", pane, "#{pane_in_mode}"); err != nil || strings.TrimSpace(mode) != "1" {
		return nil
	}
	return &failure.Error{
		Code: failure.ExitBusy,
		Msg:  fmt.Sprintf("the user is scrolling in job %s's window (tmux copy mode), so nothing was typed", name),
		Hint: "ask the user to leave copy mode there (press q in that window), then retry",
	}
}

// Screen is what a job's window shows, as --screen shows the shared pane
// (its rows, the cursor counted from 1, the size, the modes), and whether
// the job still runs.
type Screen struct {
	human.Screen
	Running bool `json:"running"`
}

// ReadScreen reads the job's window with one tmux call.
func ReadScreen(b bridge.Bridge, name string) (Screen, error) {
	c, err := open(b, name)
	if err != nil {
		return Screen{}, err
	}
	info, err := c.Info()
	c.Close()
	if err != nil {
		return Screen{}, relayFailed(name, err)
	}
	s, err := human.ReadPane(info.Pane)
	if err != nil {
		return Screen{}, relayFailed(name, err)
	}
	return Screen{Screen: s, Running: info.Running}, nil
}

// CursorLine says where the cursor is, and what kind of screen it is on.
func (s Screen) CursorLine() string {
	line := s.Screen.CursorLine()
	if !s.Running {
		line += "; the job has ended"
	}
	return line
}
