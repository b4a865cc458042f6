// Package bridgetest sets up private bridges for the end-to-end tests and
// the benchmark: an environment in which tmux's server, the runtime
// directory and the home directory are private, so nothing touches the
// developer's own tmux, and the human's terminal, ptybridge running in a
// real pseudo-terminal.
package bridgetest

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// Env is the environment of a private bridge living under dir (short:
// tmux's socket path is limited to ~104 bytes): ours, without what would
// lead to the developer's own tmux or bridge, with the tmux socket
// directory, the runtime directory and HOME under dir, bash as the human's
// shell, and binDir (the binaries under test) first on PATH.
func Env(dir, binDir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "TMUX", "TMUX_PANE", "PTYBRIDGE_SESSION", "PTYBRIDGE_RUNTIME_DIR", "XDG_RUNTIME_DIR", "HISTFILE",
			"TMUX_TMPDIR", "HOME", "SHELL", "TERM", "PATH":
			continue
		}
		env = append(env, kv)
	}
	// fish's first start in a home without this directory forks a
	// background job that parses every man page: it outlives the test's
	// tmux server and loads the machine. Its existence says "done".
	os.MkdirAll(filepath.Join(dir, "home", ".local", "share", "fish", "generated_completions"), 0o700)
	return append(env,
		"TMUX_TMPDIR="+dir,
		"PTYBRIDGE_RUNTIME_DIR="+filepath.Join(dir, "rt"),
		"HOME="+filepath.Join(dir, "home"),
		"SHELL=/bin/bash",
		"TERM=xterm-256color",
		"PATH="+binDir+":"+os.Getenv("PATH"))
}

// Terminal is one terminal window of the human, running ptybridge.
type Terminal struct {
	Cmd *exec.Cmd
	// Done is closed when ptybridge (the tmux client it became) exited.
	Done chan struct{}

	pty  *os.File
	once sync.Once
}

// Open starts ptybridge in a new 120x40 pseudo-terminal, in dir, with env.
// What the terminal shows goes to shows (written from another goroutine):
// it must be read, or tmux stalls writing to its client.
func Open(ptybridge string, env []string, dir string, shows io.Writer, args ...string) (*Terminal, error) {
	cmd := exec.Command(ptybridge, args...)
	cmd.Env, cmd.Dir = env, dir
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		return nil, err
	}
	t := &Terminal{Cmd: cmd, Done: make(chan struct{}), pty: f}
	go func() {
		io.Copy(shows, f)
		cmd.Wait()
		close(t.Done)
	}()
	return t, nil
}

// Type types s as the human does, in the terminal.
func (t *Terminal) Type(s string) { t.pty.Write([]byte(s)) }

// Close hangs the terminal up, as when the human closes the window, and
// waits up to guard for ptybridge to exit (then kills it).
func (t *Terminal) Close(guard time.Duration) {
	t.once.Do(func() {
		// What the kernel does when the window's master side goes away. A
		// Close alone would wait for the pending Read of the master.
		t.Cmd.Process.Signal(syscall.SIGHUP)
		t.pty.Close()
		select {
		case <-t.Done:
		case <-time.After(guard):
			t.Cmd.Process.Kill()
		}
	})
}

// Tmux runs a tmux command against the private server of env.
func Tmux(env []string, args ...string) (string, error) {
	cmd := exec.Command("tmux", args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Remove stops the private tmux server of env and removes dir. tmux
// daemonizes: no clean-up of the processes a test started reaches it.
func Remove(env []string, dir string) {
	Tmux(env, "kill-server")
	os.RemoveAll(dir)
}
