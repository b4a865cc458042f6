// Package jobs runs the agent's long-running jobs (dev servers, watchers, long builds) where the
// human sees them, each in a window of its own in the bridge session; it never types into the
// shared pane. A job has:
//
//   - its window, made by --job in one tmux call (new-window -d: the human's window stays;
//     remain-on-exit: an ended job stays on screen until the human closes it), or taken
//     ready-made (spare.go);
//   - its supervisor (supervisor.go), the window's process, which runs the job's shell in the
//     terminal's foreground, frames its stderr, and prints the START and END markers;
//   - its relay (internal/relay) on the window's pipe-pane, which keeps its output, stderr and
//     status, types into the window, and answers the job modes, whose client side this package is;
//   - once --job-stop closed its window, its kept output (kept.go): what the relay held, in a
//     file that the job modes read instead, until a job takes its name.
package jobs

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/human"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

const (
	MaxName   = 40
	nameChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"
)

// ValidName refuses a name unfit to name a window and a socket.
func ValidName(name string) error {
	if name == "" || len(name) > MaxName || strings.Trim(name, nameChars) != "" {
		return &failure.Error{
			Msg:  fmt.Sprintf("invalid job name %q", name),
			Hint: fmt.Sprintf("a job name is 1 to %d letters, digits, '-' and '_', e.g. --job dev-server", MaxName),
		}
	}
	return nil
}

const socketPrefix, socketSuffix = ".job-", ".sock"

// SocketPath is the socket of the relay of job name of bridge b.
func SocketPath(b bridge.Bridge, name string) string {
	return b.File(socketPrefix + name + socketSuffix)
}

// jobNames lists the job names of bridge b's runtime files ending in suffix, sorted: socketSuffix
// for the jobs whose relay sockets exist, keptSuffix for the kept ones, whatever their session.
func jobNames(b bridge.Bridge, suffix string) []string {
	base := filepath.Base(b.File(socketPrefix))
	entries, _ := os.ReadDir(b.RuntimeDir)
	var out []string
	for _, e := range entries {
		if rest, ok := strings.CutPrefix(e.Name(), base); ok {
			if name, ok := strings.CutSuffix(rest, suffix); ok && ValidName(name) == nil {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// open connects to the relay of job name: a running job's, or an ended one's whose window is
// still open; it explains a name it does not find.
func open(b bridge.Bridge, name string) (*relay.JobClient, relay.Info, error) {
	c, info, err := connect(b, name)
	if errors.Is(err, relay.ErrNoRelay) {
		err = noSuchJob(b, name)
	}
	return c, info, err
}

// find connects to the relay of job name, else reads what was kept of it when it was stopped
// (k, with its output); it explains a name it does not find.
func find(b bridge.Bridge, name string) (c *relay.JobClient, k *relay.Kept, info relay.Info, err error) {
	c, info, err = connect(b, name)
	if errors.Is(err, relay.ErrNoRelay) {
		if k = findKept(b, name); k != nil {
			return nil, k, k.Info, nil
		}
		err = noSuchJob(b, name)
	}
	return c, nil, info, err
}

// connect connects to the relay of job name; relay.ErrNoRelay when none listens (no such job, or
// a stopped one).
func connect(b bridge.Bridge, name string) (*relay.JobClient, relay.Info, error) {
	if err := ValidName(name); err != nil {
		return nil, relay.Info{}, err
	}
	c, err := relay.DialJob(SocketPath(b, name))
	if err != nil {
		return nil, relay.Info{}, err
	}
	info, err := c.Info()
	if err != nil {
		c.Close()
		return nil, info, relayFailed(name, err)
	}
	return c, info, nil
}

// noSuchJob explains a job name with no relay: a stopped job's, or none.
func noSuchJob(b bridge.Bridge, name string) error {
	kept := keptJobsOf(b)
	if k := kept[name]; k != nil {
		return &failure.Error{
			Msg:  fmt.Sprintf("job %s was stopped (%s): its window is closed", name, stateText(k.Info)),
			Hint: "ptysend --job-output " + name + " shows what it printed; start it again with ptysend --job " + name + " -- WORDS",
		}
	}
	known := append(jobNames(b, socketSuffix), slices.Collect(maps.Keys(kept))...)
	sort.Strings(known)
	there := "there are no jobs"
	if len(known) > 0 {
		there = "the jobs are: " + strings.Join(known, ", ")
	}
	return &failure.Error{
		Msg:  fmt.Sprintf("no job named %s (%s)", name, there),
		Hint: "ptysend --jobs lists the jobs; a job is gone once its window was closed; start one with ptysend --job NAME -- WORDS",
	}
}

// relayFailed explains a job's relay that failed or hung up mid-request.
func relayFailed(name string, err error) error {
	if errors.Is(err, relay.ErrHungUp) {
		return &failure.Error{
			Msg:  fmt.Sprintf("the job %s is gone: its window was closed", name),
			Hint: "ptysend --jobs lists the jobs that remain",
		}
	}
	return &failure.Error{
		Msg:  fmt.Sprintf("talking to the relay of job %s: %v", name, err),
		Hint: "retry; ptysend --jobs lists the jobs",
	}
}

// Infos describes every job of the bridge, stopped ones included, oldest first.
func Infos(b bridge.Bridge) []relay.Info {
	infos := []relay.Info{}
	live := map[string]bool{}
	for _, name := range jobNames(b, socketSuffix) {
		if c, info, err := connect(b, name); err == nil {
			c.Close()
			infos = append(infos, info)
			live[name] = true
		}
	}
	for name, k := range keptJobsOf(b) {
		if !live[name] {
			infos = append(infos, k.Info)
		}
	}
	sort.SliceStable(infos, func(i, j int) bool { return infos[i].Started.Before(infos[j].Started) })
	return infos
}

// List prints one line per job (--jobs): its name, "running" or its exit status, how long it
// ran, and the last line it printed; with asJSON one relay.Info per line.
func List(infos []relay.Info, asJSON bool, stdout, stderr io.Writer) (int, error) {
	width := 4
	for _, info := range infos {
		width = max(width, len(info.Name))
	}
	if asJSON {
		for _, info := range infos {
			if err := json.NewEncoder(stdout).Encode(info); err != nil {
				return 0, err
			}
		}
		return 0, nil
	}
	if len(infos) == 0 {
		fmt.Fprintln(stderr, "ptysend: no jobs (start one with: ptysend --job NAME -- WORDS)")
		return 0, nil
	}
	for _, info := range infos {
		fmt.Fprintf(stdout, "%-*s  %-9s  %8s  %s\n", width, info.Name, stateText(info), runtimeText(info.Runtime), printable(info.LastLine))
	}
	return 0, nil
}

func stateText(info relay.Info) string {
	switch {
	case info.Running:
		return "running"
	case exitStatus(info) < 0:
		return "exit ?"
	}
	return fmt.Sprintf("exit %d", *info.Status)
}

// exitStatus is an ended job's exit status; -1 when it was lost.
func exitStatus(info relay.Info) int {
	if info.Status == nil {
		return -1
	}
	return *info.Status
}

// runtimeText is a job's runtime for people: 4.2s, 3m05s, 2h07m.
func runtimeText(secs float64) string {
	d := time.Duration(secs * float64(time.Second))
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// printable is s with controls as spaces, at most 120 characters.
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return s
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
// be copy-mode commands (tmux is asked: job modes are off calls' path).
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

// Screen is a job's window as --screen shows the shared pane, and whether the job runs.
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
