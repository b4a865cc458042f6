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
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/ptybridge/ptybridge/internal/session"
)

// hangGuard bounds every wait so that a broken build fails with a message
// instead of hanging the run. It is no performance limit.
const hangGuard = 60 * time.Second

// buildBinaries builds ptybridge and ptysend into a new directory, the way
// scripts/bridge does (static, CGO_ENABLED=0).
func buildBinaries() (string, error) {
	dir, err := os.MkdirTemp("", "ptybridge-bench-bin")
	if err != nil {
		return "", err
	}
	build := exec.Command("go", "build", "-o", dir+"/",
		"github.com/ptybridge/ptybridge/cmd/ptybridge", "github.com/ptybridge/ptybridge/cmd/ptysend")
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
	term    *os.File
	human   *exec.Cmd
	drained chan struct{}
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
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "TMUX", "TMUX_PANE", "PTYBRIDGE_SESSION", "PTYBRIDGE_RUNTIME_DIR", "XDG_RUNTIME_DIR", "HISTFILE":
			continue
		}
		w.env = append(w.env, kv)
	}
	os.Mkdir(filepath.Join(dir, "home"), 0o700)
	w.env = append(w.env,
		"TMUX_TMPDIR="+dir,
		"PTYBRIDGE_RUNTIME_DIR="+filepath.Join(dir, "rt"),
		"PTYBRIDGE_SESSION="+w.name,
		"HOME="+filepath.Join(dir, "home"),
		"SHELL=/bin/bash",
		"TERM=xterm-256color",
		"PATH="+bin+":"+os.Getenv("PATH"))

	human := exec.Command(filepath.Join(bin, "ptybridge"))
	human.Env, human.Dir = w.env, dir
	f, err := pty.StartWithSize(human, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		return nil, err
	}
	w.term, w.human, w.drained = f, human, make(chan struct{})
	// The human's terminal must be read, or tmux stalls writing to it; what
	// it shows is of no interest here.
	go func() {
		io.Copy(io.Discard, f)
		human.Wait()
		close(w.drained)
	}()

	deadline := time.Now().Add(hangGuard)
	for {
		out, err := w.tmux("display-message", "-p", "-t", "="+w.name+":", "#{session_attached} #{pane_id} #{pane_pid}")
		fields := strings.Fields(out)
		if err == nil && len(fields) == 3 && fields[0] != "0" {
			w.pane = fields[1]
			w.panePID, _ = strconv.Atoi(fields[2])
			// Until it execs the shell, the pane's process is a tmux.
			if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", w.panePID)); strings.TrimSpace(string(comm)) == "bash" {
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
		w.human.Process.Signal(syscall.SIGHUP)
		w.term.Close()
		select {
		case <-w.drained:
		case <-time.After(hangGuard):
			w.human.Process.Kill()
		}
	}
	// tmux daemonizes: nobody else would stop the private server.
	w.tmux("kill-server")
	os.RemoveAll(w.dir)
}

// tmux runs one tmux command against the private server.
func (w *world) tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", args...)
	cmd.Env = w.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

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
		fg, err := session.ForegroundPID(w.panePID)
		if err == nil && fg == w.panePID {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the pane's shell did not come back to the foreground (tpgid %d, %v)", fg, err)
		}
		time.Sleep(time.Millisecond)
	}
}
