// Package bridgetest sets up private bridges for the end-to-end tests and
// the benchmark: an environment in which tmux's server, the runtime
// directory and the home directory are private, so nothing touches the
// developer's own tmux, and the human's terminal, ptybridge running in a
// real pseudo-terminal. The whole of a bridge can run as another user of
// the machine (see User).
package bridgetest

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// User is another user of the machine as whom a bridge runs: its tmux
// server, ptybridge, the shell and every tool call. The tests' human is
// ptb-human, whose sudo asks for a password (root's never does);
// scripts/test-deps creates it. A nil *User is the user running the tests.
type User struct {
	Name       string
	Home       string
	credential *syscall.Credential
}

// LookupUser finds the user name with its groups, as setpriv
// --init-groups would give them.
func LookupUser(name string) (*User, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("the test user %s does not exist: run scripts/test-deps as root (%v)", name, err)
	}
	if os.Geteuid() != 0 {
		return nil, fmt.Errorf("the tests must run as root to act as the test user %s", name)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	groups, err := u.GroupIds()
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		n, _ := strconv.ParseUint(g, 10, 32)
		cred.Groups = append(cred.Groups, uint32(n))
	}
	return &User{Name: name, Home: u.HomeDir, credential: cred}, nil
}

// Runs makes cmd run as u.
func (u *User) Runs(cmd *exec.Cmd) *exec.Cmd {
	if u == nil {
		return cmd
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = u.credential
	return cmd
}

// Own gives dir and everything in it to u.
func (u *User) Own(dir string) error {
	if u == nil {
		return nil
	}
	return filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(path, int(u.credential.Uid), int(u.credential.Gid))
	})
}

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

// Resize sets the terminal's size, as when the human resizes the window.
func (t *Terminal) Resize(cols, rows uint16) error {
	return pty.Setsize(t.pty, &pty.Winsize{Rows: rows, Cols: cols})
}

// Open starts ptybridge, as the user as (nil: ourselves), in a new 120x40
// pseudo-terminal, in dir, with env. What the terminal shows goes to shows
// (written from another goroutine): it must be read, or tmux stalls
// writing to its client.
func Open(as *User, ptybridge string, env []string, dir string, shows io.Writer, args ...string) (*Terminal, error) {
	cmd := as.Runs(exec.Command(ptybridge, args...))
	cmd.Env, cmd.Dir = env, dir
	f, err := startInTerminal(as, cmd)
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

// startInTerminal starts cmd as the session leader of a new terminal,
// which is its controlling terminal and standard files, as a terminal
// window starts a shell. The terminal belongs to the user cmd runs as.
func startInTerminal(as *User, cmd *exec.Cmd) (*os.File, error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, err
	}
	defer tty.Close()
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120}); err != nil {
		ptmx.Close()
		return nil, err
	}
	if as != nil {
		if err := os.Chown(tty.Name(), int(as.credential.Uid), int(as.credential.Gid)); err != nil {
			ptmx.Close()
			return nil, err
		}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid, cmd.SysProcAttr.Setctty = true, true
	if err := cmd.Start(); err != nil {
		ptmx.Close()
		return nil, err
	}
	return ptmx, nil
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

// Tmux runs a tmux command, as the user as, against the private server
// of env.
func Tmux(as *User, env []string, args ...string) (string, error) {
	cmd := as.Runs(exec.Command("tmux", args...))
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Remove stops the private tmux server of env, run by as, and removes
// dir. tmux daemonizes: no clean-up of the processes a test started
// reaches it.
func Remove(as *User, env []string, dir string) {
	Tmux(as, env, "kill-server")
	os.RemoveAll(dir)
}
