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

// Stop stops the job (Ctrl-C, Ctrl-\ 3 s later, then SIGKILL to its
// process group), closes its window and returns its exit status.
func Stop(b bridge.Bridge, name string, notes io.Writer) (int, error) {
	c, _, err := open(b, name)
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

// Send types text into the job's window, literally, then Enter if enter:
// several lines as one bracketed paste when the program asked for one.
func Send(b bridge.Bridge, name, text string, enter bool) (int, error) {
	c, _, err := typable(b, name)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if err := c.Send(text, enter); err != nil {
		return 0, relayFailed(name, err)
	}
	return 0, nil
}

// Keys sends tmux key names (C-c, Up, Enter, q, G) to the job's window.
func Keys(b bridge.Bridge, name string, keys []string) (int, error) {
	c, pane, err := typable(b, name)
	if err != nil {
		return 0, err
	}
	c.Close()
	if _, err := tmux.Run(append([]string{"send-keys", "-t", pane}, keys...)...); err != nil {
		return 0, &failure.Error{
			Msg:  fmt.Sprintf("sending keys to job %s: %v", name, err),
			Hint: "give tmux key names, e.g. C-c, Up, Enter, q; text goes with --job-send",
		}
	}
	return 0, nil
}

// typable connects to a job whose window takes keys, and says its pane:
// not an ended job's, nor one the human scrolls back in, where keys would
// be copy-mode commands (tmux is asked: the job modes are off every
// call's path).
func typable(b bridge.Bridge, name string) (*relay.JobClient, string, error) {
	c, info, err := open(b, name)
	if err != nil {
		return nil, "", err
	}
	if !info.Running {
		err = &failure.Error{
			Msg:  fmt.Sprintf("job %s has ended (%s), so nothing was typed", name, stateText(info)),
			Hint: "ptysend --job-output " + name + " shows what it printed; start it again with ptysend --job " + name + " -- WORDS",
		}
	} else if mode, terr := tmux.Run("display-message", "-p", "-t", info.Pane, "#{pane_in_mode}"); terr == nil && strings.TrimSpace(mode) == "1" {
		err = &failure.Error{
			Code: failure.ExitBusy,
			Msg:  fmt.Sprintf("the user is scrolling in job %s's window (tmux copy mode), so nothing was typed", name),
			Hint: "ask the user to leave copy mode there (press q in that window), then retry",
		}
	}
	if err != nil {
		c.Close()
		return nil, "", err
	}
	return c, info.Pane, nil
}

// Screen is a job's window as --screen shows the shared pane, and whether
// the job runs.
type Screen struct {
	human.Screen
	Running bool `json:"running"`
}

// ReadScreen reads the job's window with one tmux call.
func ReadScreen(b bridge.Bridge, name string) (Screen, error) {
	c, info, err := open(b, name)
	if err != nil {
		return Screen{}, err
	}
	c.Close()
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
