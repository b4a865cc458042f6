package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridgetest"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// hangGuard bounds every wait so that a broken build fails with a message
// instead of hanging the run. It is no performance limit.
const hangGuard = 60 * time.Second

// buildBinaries builds ptybridge, ptysend and ptysend-mcp into a new
// directory, the way scripts/bridge does (static, CGO_ENABLED=0).
func buildBinaries() (string, error) {
	dir, err := os.MkdirTemp("", "ptybridge-bench-bin")
	if err != nil {
		return "", err
	}
	build := exec.Command("go", "build", "-o", dir+"/",
		"github.com/ptybridge/ptybridge/cmd/ptybridge", "github.com/ptybridge/ptybridge/cmd/ptysend",
		"github.com/ptybridge/ptybridge/cmd/ptysend-mcp")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("building the binaries: %w", err)
	}
	return dir, nil
}

// world is a private bridge, set up exactly like the end-to-end tests do
// (internal/e2e/harness_test.go): its own tmux server under a short
// TMUX_TMPDIR, its own runtime directory and home, and ptybridge running
// in a real pseudo-terminal that plays the human's window.
type world struct {
	bin     string
	dir     string
	env     []string
	name    string
	pane    string // the shared pane's id
	panePID int    // its shell
	human   *bridgetest.Terminal
}

func newWorld(bin string) (w *world, err error) {
	dir, err := os.MkdirTemp("/tmp", "ptbb")
	if err != nil {
		return nil, err
	}
	w = &world{bin: bin, dir: dir, name: "ptybridge-bench"}
	defer func() {
		if err != nil {
			w.close()
		}
	}()
	w.env = append(bridgetest.Env(dir, bin), "PTYBRIDGE_SESSION="+w.name)
	// What the human's terminal shows is of no interest here.
	if w.human, err = bridgetest.Open(nil, filepath.Join(bin, "ptybridge"), w.env, dir, io.Discard); err != nil {
		return nil, err
	}

	deadline := time.Now().Add(hangGuard)
	for {
		out, err := w.tmux("display-message", "-p", "-t", "="+w.name+":", "#{session_attached} #{pane_id} #{pane_pid}")
		fields := strings.Fields(out)
		if err == nil && len(fields) == 3 && fields[0] != "0" {
			w.pane = fields[1]
			w.panePID, _ = strconv.Atoi(fields[2])
			// Until it execs the shell, the pane's process is a tmux.
			if platform.Comm(w.panePID) == "bash" {
				break
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the bridge did not start: %s", out)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return w, w.settle()
}

func (w *world) close() {
	if w.human != nil {
		w.human.Close(hangGuard)
	}
	bridgetest.Remove(nil, w.env, w.dir)
}

// tmux runs one tmux command against the private server.
func (w *world) tmux(args ...string) (string, error) { return bridgetest.Tmux(nil, w.env, args...) }

// command prepares a process of the world, killed if it hangs.
func (w *world) command(name string, args ...string) (*exec.Cmd, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = w.env
	return cmd, cancel
}

// settle waits, outside any measurement, until the pane's shell is back in
// the foreground of its terminal: a `tmux wait-for -S` run in the pane may
// still be exiting when the waiter returns, and ptysend rightly refuses a
// busy pane.
func (w *world) settle() error {
	deadline := time.Now().Add(hangGuard)
	for {
		fg, err := platform.ForegroundPID(w.panePID)
		if err == nil && fg == w.panePID {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the pane's shell did not come back to the foreground (tpgid %d, %v)", fg, err)
		}
		time.Sleep(time.Millisecond)
	}
}
