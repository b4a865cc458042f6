package jobs

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/rundir"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// Request is a job to start: --job NAME [--cwd DIR] [--env KEY=VALUE]... [--show] -- WORDS.
type Request struct {
	Name, Command string
	Dir           string   // relative to the shared shell's
	Env           []string // over the shared shell's
	Show          bool     // beside the user's shell, not in a window of its own
}

// Start starts a job in a new window of the bridge session and returns once it runs (its
// supervisor printed START, its relay listens): one tmux process (scripts/bench); with Show, a
// second moves it beside the user's shell.
func Start(b bridge.Bridge, req Request, notes io.Writer) (int, error) {
	name, command, dir, env := req.Name, req.Command, req.Dir, req.Env
	if err := ValidName(name); err != nil {
		return 0, err
	}
	for _, kv := range env {
		if key, _, ok := strings.Cut(kv, "="); !ok || key == "" || strings.ContainsAny(key, "\x00") {
			return 0, &failure.Error{Msg: fmt.Sprintf("invalid --env %q", kv), Hint: "give --env KEY=VALUE, e.g. --env PORT=8080"}
		}
	}
	if err := rundir.Ensure(b.RuntimeDir); err != nil {
		return 0, failure.From(err)
	}
	sock := SocketPath(b, name)
	if len(sock) > 107 { // what a unix socket's address can hold
		return 0, &failure.Error{
			Msg:  fmt.Sprintf("the job's socket path would be too long for a unix socket (%d bytes): %s", len(sock), sock),
			Hint: "use a shorter job name, or set PTYBRIDGE_RUNTIME_DIR to a shorter private directory (for the user and the agent alike)",
		}
	}
	unlock, err := platform.LockDir(b.RuntimeDir) // one start at a time, of any name: starting is quick
	if err != nil {
		return 0, failure.From(err)
	}
	defer unlock()
	if err := makeRoom(b, name); err != nil {
		return 0, err
	}
	os.Remove(keptPath(b, name)) // a stopped job's output goes when its name is reused
	pruneKept(b, countStart(b))
	sh, err := findSharedShell(b)
	if err != nil {
		return 0, err
	}
	if dir == "" {
		dir = sh.Dir
	} else {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(sh.Dir, dir)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return 0, &failure.Error{
				Msg:  fmt.Sprintf("--cwd %s: no such directory", dir),
				Hint: "give an existing directory; a relative one is taken from the shared shell's directory, " + sh.Dir,
			}
		}
	}

	id, err := markers.NewID()
	if err != nil {
		return 0, failure.From(err)
	}
	rundir.Claim(b.RuntimeDir, string(id))
	sp := spec{ID: id, Name: name, Shell: sh.Program, Command: command, Dir: dir, Env: append(sh.Env, env...)}
	// The job's relay says on the ready fifo when the job runs; the supervisor of a window made
	// for the job reads it from the spec file.
	readyPath, specPath := filepath.Join(b.RuntimeDir, string(id)+".ready"), filepath.Join(b.RuntimeDir, string(id)+".job.json")
	defer os.Remove(readyPath)
	defer os.Remove(specPath)
	err = syscall.Mkfifo(readyPath, 0o600)
	var ready *os.File
	if err == nil { // open for writing too: no end of file before the relay has written
		ready, err = os.OpenFile(readyPath, os.O_RDWR, 0)
	}
	if err != nil {
		return 0, failure.From(err)
	}
	defer ready.Close()
	pane, err := takeSpare(b, sp, sock, readyPath)
	if pane == "" {
		pane, err = startInNewWindow(b, sp, sock, specPath, readyPath)
	}
	if err == nil {
		ready.SetReadDeadline(time.Now().Add(relay.ReadyLimit))
		switch line, rerr := bufio.NewReader(ready).ReadString('\n'); {
		case rerr != nil:
			err = fmt.Errorf("it did not start within %v", relay.ReadyLimit)
		case line != "ok\n":
			err = errors.New(strings.TrimPrefix(strings.TrimSpace(line), "error "))
		}
	}
	if err != nil && pane != "" {
		tmux.Run("kill-pane", "-t", pane)
		err = &failure.Error{
			Msg:  fmt.Sprintf("the job %s could not start: %v", name, err),
			Hint: "retry; if it happens again, ask the user to restart ptybridge",
		}
	}
	if err != nil {
		return 0, err
	}
	where := fmt.Sprintf("in window %q of the shared terminal", name)
	if req.Show {
		// The job's pane leaves its window for the user's, beside their shell; they look at it.
		if _, err := tmux.Run("join-pane", "-d", "-h", "-s", pane, "-t", sh.PaneID); err != nil {
			fmt.Fprintf(notes, "ptysend: job %s could not be shown beside the user's shell (%v)\n", name, err)
		} else {
			where = "in a pane beside the user's shell"
		}
	}
	fmt.Fprintf(notes, "ptysend: job %s runs %s (%s -c, in %s); "+
		"it has the shared shell's environment as that shell started, and --env: not what was exported in it since\n",
		name, where, sh.Name, dir)
	return 0, nil
}

// startInNewWindow starts the job in a window it makes (no spare is ready), in one tmux call:
// the supervisor reads the job from a private file.
func startInNewWindow(b bridge.Bridge, sp spec, sock, specPath, ready string) (pane string, err error) {
	js, _ := json.Marshal(sp)
	if err := os.WriteFile(specPath, js, 0o600); err != nil {
		return "", failure.From(err)
	}
	// The window goes behind the human's, after the last one: while the
	// call runs nothing else happens in tmux, so "{end}" is ours.
	job := relay.JobConfig{Name: sp.Name, ID: sp.ID, Ready: ready, Command: shorten(sp.Command, 200),
		Session: b.Name, SpareMaker: spareMaker(b)}
	target := "=" + b.Name + ":{end}"
	args := append([]string{"new-window", "-d", "-a", "-t", target, "-n", sp.Name, "-c", strings.ReplaceAll(sp.Dir, "#", "##"),
		"-P", "-F", "#{pane_id}", b.Exe, "--job-supervise", specPath}, relay.WindowOptions(target, sp.Name)...)
	out, err := tmux.Run(append(args, ";", "pipe-pane", "-I", "-O", "-t", target, b.RelayCommand(sock, &job))...)
	switch {
	case errors.Is(err, tmux.ErrNoTmux):
		return "", &failure.Error{Verbatim: bridge.NoBridgeMessage}
	case tmux.IsMissingSession(err):
		return "", b.Missing()
	case err != nil:
		return "", failure.From(err)
	}
	return strings.TrimSpace(out), nil
}

// makeRoom refuses a running job's name, and closes the window of an ended job that had it.
func makeRoom(b bridge.Bridge, name string) error {
	c, info, err := connect(b, name)
	if err != nil {
		return nil
	}
	defer c.Close()
	if info.Running {
		return &failure.Error{
			Msg:  fmt.Sprintf("a job named %s is running already", name),
			Hint: fmt.Sprintf("choose another name, or stop it first: ptysend --job-stop %s", name),
		}
	}
	if err := c.CloseWindow(); err != nil {
		return &failure.Error{
			Msg:  fmt.Sprintf("closing the window of the ended job %s, to reuse its name: %v", name, err),
			Hint: "choose another name",
		}
	}
	return nil
}

// shorten cuts s to at most n bytes, on a character boundary, with "…".
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xc0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// spareMaker is the command a job's relay runs, once the job runs, to make
// the next job's window ahead of time (spare.go).
func spareMaker(b bridge.Bridge) []string { return []string{b.Exe, "--job-spare-make", b.Name} }

// sharedShell is what a job takes from the shell of the shared terminal:
// its program, directory, and environment as the shell started (the
// kernel shows no other: --env carries what was exported since).
type sharedShell struct {
	PaneID  string // the shared pane
	Program string // the shell's executable
	Name    string // as the human would call it: bash, zsh, fish, sh
	Dir     string
	Env     []string
}

// findSharedShell finds the shell of the shared pane without a turn at
// the pane, which may be busy: the relay's status and one pane.Peek.
func findSharedShell(b bridge.Bridge) (sharedShell, error) {
	status, err := b.Status()
	if err != nil {
		return sharedShell{}, err
	}
	st, err := pane.Peek(status, b)
	if err != nil {
		return sharedShell{}, err
	}
	sh, pid := sharedShell{PaneID: status.PaneID}, status.PanePID
	switch {
	case st.Shell != nil:
		pid, sh.Name, sh.Program = st.Shell.PID, st.Shell.Name, shellProgram(st.Shell.PID, st.Shell.Name)
	case st.Kind == pane.Unsupported:
		return sharedShell{}, &failure.Error{
			Msg: fmt.Sprintf("the shared terminal runs %s, a shell ptysend cannot start jobs in", st.Foreground.Name),
			Hint: fmt.Sprintf("ptysend supports %s: ask the user to start one of them in the ptybridge terminal, then retry",
				markers.Supported),
		}
	case platform.OwnedByUs(status.PanePID):
		// No shell of ours (ptybridge -- ssh HOST): the user's login shell.
		sh.Program = loginShell(pid)
		sh.Name = filepath.Base(sh.Program)
	default:
		return sharedShell{}, &failure.Error{
			Msg:  "found no shell in the shared terminal to take the job's kind of shell, directory and environment from",
			Hint: "ask the user to start a shell (bash, zsh, fish or sh) in the ptybridge terminal, then retry",
		}
	}
	if sh.Dir, err = platform.Cwd(pid); err != nil {
		return sharedShell{}, &failure.Error{
			Msg:  "cannot read the shared shell's directory: " + err.Error(),
			Hint: "ptysend must run as the same user as ptybridge; or give the job's directory with --cwd",
		}
	}
	sh.Env = platform.Environ(pid) // the supervisor leaves out tmux's (jobEnv)
	return sh, nil
}

// loginShell is $SHELL of the pane's process when ptysend knows it; else /bin/sh.
func loginShell(pid int) string {
	for _, kv := range platform.Environ(pid) {
		if login, ok := strings.CutPrefix(kv, "SHELL="); ok {
			if _, known := markers.ShellFor(login); known {
				if p, err := exec.LookPath(login); err == nil {
					return p
				}
			}
		}
	}
	return "/bin/sh"
}

// shellProgram is the executable of the shell pid (not busybox, whose
// applet is the name), else the name on PATH.
func shellProgram(pid int, name string) string {
	exe, err := platform.Executable(pid)
	if err == nil && filepath.Base(exe) != "busybox" {
		if _, err := os.Stat(exe); err == nil {
			return exe
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	return "/bin/sh"
}
