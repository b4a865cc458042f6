package jobs

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/human"
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
		return 0, keeperFailed(name, err)
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
func runningJob(b bridge.Bridge, name string) (*client, Info, error) {
	c, err := open(b, name)
	if err != nil {
		return nil, Info{}, err
	}
	info, err := c.Info()
	if err != nil {
		c.Close()
		return nil, info, keeperFailed(name, err)
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
	c, _, err := runningJob(b, name)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if err := c.Send(text, enter); err != nil {
		return 0, keeperFailed(name, err)
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
	// Keys sent to a window in copy mode would be copy-mode commands.
	if mode, err := tmux.Run("display-message", "-p", "-t", info.Pane, "#{pane_in_mode}"); err == nil && strings.TrimSpace(mode) == "1" {
		return 0, &failure.Error{
			Code: failure.ExitBusy,
			Msg:  fmt.Sprintf("the user is scrolling in job %s's window (tmux copy mode), so no key was sent", name),
			Hint: "ask the user to leave copy mode there (q), then retry; --job-send types text whatever the window shows",
		}
	}
	if _, err := tmux.Run(append([]string{"send-keys", "-t", info.Pane}, keys...)...); err != nil {
		return 0, &failure.Error{
			Msg:  fmt.Sprintf("sending keys to job %s: %v", name, err),
			Hint: "give tmux key names, e.g. C-c, Up, Enter, q; text goes with --job-send",
		}
	}
	return 0, nil
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
		return Screen{}, keeperFailed(name, err)
	}
	out, err := tmux.Run("display-message", "-p", "-t", info.Pane,
		"#{cursor_x}\t#{cursor_y}\t#{pane_width}\t#{pane_height}\t#{alternate_on}\t#{pane_in_mode}",
		";", "capture-pane", "-p", "-t", info.Pane)
	if err != nil {
		return Screen{}, keeperFailed(name, err)
	}
	head, rows, _ := strings.Cut(out, "\n")
	f := strings.Split(head, "\t")
	if len(f) != 6 {
		return Screen{}, fmt.Errorf("unexpected answer from tmux: %q", head)
	}
	var n [4]int
	for i := range n {
		if n[i], err = strconv.Atoi(f[i]); err != nil {
			return Screen{}, fmt.Errorf("unexpected answer from tmux: %q", head)
		}
	}
	s := Screen{Screen: human.Screen{CursorCol: n[0] + 1, CursorRow: n[1] + 1, Width: n[2], Height: n[3],
		AlternateScreen: f[4] == "1", CopyMode: f[5] == "1"}, Running: info.Running}
	s.Rows = strings.Split(strings.TrimSuffix(rows, "\n"), "\n")
	for len(s.Rows) < s.Height {
		s.Rows = append(s.Rows, "")
	}
	return s, nil
}

// CursorLine says where the cursor is, and what kind of screen it is on.
func (s Screen) CursorLine() string {
	line := s.Screen.CursorLine()
	if !s.Running {
		line += "; the job has ended"
	}
	return line
}
