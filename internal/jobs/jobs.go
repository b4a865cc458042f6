// Package jobs runs the agent's long-running jobs (dev servers, watchers,
// long builds) where the human sees them: each in a window of its own in
// the bridge session, beside the shared terminal. It never types into the
// shared pane.
//
// A job has three parts:
//
//   - its window, made by ptysend --job with one tmux call (new-window -d,
//     so the human's current window stays; remain-on-exit, so a job that
//     ended stays on screen, marked finished, until the human closes it),
//     or taken ready-made (spare.go);
//   - its supervisor (supervisor.go), the window's process: ptysend in a
//     hidden mode that starts the job's shell (of the shared shell's kind,
//     in its directory and environment) as the terminal's foreground
//     process group, frames the job's stderr onto the terminal as ptysend
//     does for commands, and prints the invisible START and END markers,
//     END with the job's exit status;
//   - its relay, the shared pane's program (internal/relay) on the
//     window's pipe-pane both ways: it keeps the job's output, stderr and
//     status in bounded memory, types into the window, and answers the job
//     modes (--jobs, --job-output, --job-wait, --job-stop, --job-send,
//     --job-keys, --job-screen), whose client side this package is.
package jobs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// MaxName bounds a job's name.
const MaxName = 40

const nameChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"

// ValidName refuses a name that is not 1 to MaxName letters, digits, '-'
// and '_' (it names the window and the relay's socket).
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

// maxSocketPath is what a unix socket's address can hold.
const maxSocketPath = 107

// names lists the jobs of bridge b whose relay sockets exist, sorted.
func names(b bridge.Bridge) []string {
	base := filepath.Base(b.File(socketPrefix))
	entries, _ := os.ReadDir(b.RuntimeDir)
	var out []string
	for _, e := range entries {
		if rest, ok := strings.CutPrefix(e.Name(), base); ok {
			if name, ok := strings.CutSuffix(rest, socketSuffix); ok && ValidName(name) == nil {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// open connects to the relay of job name and reads its state.
func open(b bridge.Bridge, name string) (*relay.JobClient, relay.Info, error) {
	if err := ValidName(name); err != nil {
		return nil, relay.Info{}, err
	}
	c, err := relay.DialJob(SocketPath(b, name))
	if err != nil {
		return nil, relay.Info{}, unknownJob(b, name)
	}
	info, err := c.Info()
	if err != nil {
		c.Close()
		return nil, info, relayFailed(name, err)
	}
	return c, info, nil
}

// unknownJob explains a name no job has, naming those there are.
func unknownJob(b bridge.Bridge, name string) error {
	there := "there are no jobs"
	if known := names(b); len(known) > 0 {
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
