package jobs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// sharedShell is what a job takes from the shell of the shared terminal:
// its kind (the program), its directory, and its environment.
//
// The environment is the one the shell was started with
// (/proc/PID/environ): the kernel shows nothing else of a process's
// environment. Variables the human or the agent exported in that shell
// since (export, set -x), and its functions, aliases and unexported
// variables, are not carried: pass them with --env, or in the job's
// command.
type sharedShell struct {
	PID     int
	Program string // the shell's executable
	Name    string // as the human would call it: bash, zsh, fish, sh
	Dir     string
	Env     []string
}

// findSharedShell finds the shell of the bridge's shared pane without
// a turn at the pane (a job starts while the pane is busy) and without a
// tmux process, from the relay's record of the pane; tmux is asked only
// when there is none.
func findSharedShell(b bridge.Bridge) (sharedShell, error) {
	panePID, err := sharedPanePID(b)
	if err != nil {
		return sharedShell{}, err
	}
	pid, err := shellOf(panePID)
	var sh sharedShell
	switch {
	case err == nil:
		sh = sharedShell{PID: pid, Name: platform.Name(pid)}
		sh.Program = shellProgram(pid, sh.Name)
	case errors.Is(err, errNoShell) && platform.OwnedByUs(panePID):
		// The pane runs no shell of ours (ptybridge -- ssh HOST): the job
		// gets the user's login shell, with the pane's directory and
		// environment.
		pid = panePID
		sh = sharedShell{PID: pid, Program: "/bin/sh"}
		if login := environValue(pid, "SHELL"); login != "" {
			if _, ok := markers.ShellFor(login); ok {
				if p, err := exec.LookPath(login); err == nil {
					sh.Program = p
				}
			}
		}
		sh.Name = filepath.Base(sh.Program)
	default:
		return sharedShell{}, err
	}
	if sh.Dir, err = platform.Cwd(pid); err != nil {
		return sharedShell{}, &failure.Error{
			Msg:  "cannot read the shared shell's directory: " + err.Error(),
			Hint: "ptysend needs /proc (Linux) and must run as the same user as ptybridge; or give the job's directory with --cwd",
		}
	}
	for _, kv := range platform.Environ(pid) {
		key, _, ok := strings.Cut(kv, "=")
		switch {
		case !ok, key == "":
		case key == "TMUX", key == "TMUX_PANE", key == "PTYBRIDGE_JOB":
			// tmux sets its own for the job's window; the supervisor names the job.
		default:
			sh.Env = append(sh.Env, kv)
		}
	}
	return sh, nil
}

// sharedPanePID is the process of the shared pane: as the relay recorded
// it while it is alive and still the process of a terminal session (the
// pane's), else as tmux tells.
func sharedPanePID(b bridge.Bridge) (int, error) {
	if _, pid, err := relay.ReadPaneFile(b.SocketPath()); err == nil && sessionLeader(pid) {
		return pid, nil
	}
	out, err := tmux.Run("display-message", "-p", "-t", b.Target(), "#{session_name}\t#{@ptybridge_pane}")
	name, pane, _ := strings.Cut(strings.TrimRight(out, "\n"), "\t")
	if errors.Is(err, tmux.ErrNoTmux) {
		return 0, &failure.Error{Verbatim: bridge.NoBridgeMessage}
	}
	if tmux.IsMissingSession(err) || err == nil && name != b.Name {
		return 0, b.Missing()
	}
	if err != nil {
		return 0, failure.From(err)
	}
	if pane == "" {
		pane = b.Target()
	}
	out, err = tmux.Run("display-message", "-p", "-t", pane, "#{pane_pid}")
	if err != nil {
		return 0, failure.From(err)
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// sessionLeader reports whether pid runs and leads its session, as the
// process of a tmux pane does.
func sessionLeader(pid int) bool {
	p, err := platform.ReadProc(pid)
	return err == nil && p.SID == pid
}

// shellOf finds the shell the human works in, in the pane of process
// panePID: the innermost shell of ours between the terminal's foreground
// process and the pane's own (a bash started inside fish; the shell of
// an editor that runs in the foreground).
func shellOf(panePID int) (int, error) {
	fg, err := platform.ForegroundPID(panePID)
	if err != nil {
		return 0, &failure.Error{
			Msg:  "cannot inspect the shared terminal's processes: " + err.Error(),
			Hint: "ptysend needs /proc (Linux) and must run as the same user as ptybridge",
		}
	}
	var foreign string
	for pid, steps := fg, 0; pid > 1 && steps < 64; steps++ {
		if _, ok := markers.ShellFor(platform.Name(pid)); ok && platform.OwnedByUs(pid) && interactive(platform.Args(pid)) {
			return pid, nil
		}
		if foreign == "" && markers.Unsupported(platform.Name(pid)) {
			foreign = platform.Name(pid)
		}
		if pid == panePID {
			break
		}
		pid = platform.Parent(pid)
	}
	if foreign != "" {
		return 0, &failure.Error{
			Msg: fmt.Sprintf("the shared terminal runs %s, a shell ptysend cannot start jobs in", foreign),
			Hint: fmt.Sprintf("ptysend supports %s: ask the user to start one of them in the ptybridge terminal, then retry",
				markers.Supported),
		}
	}
	return 0, errNoShell
}

// interactive reports whether a shell's arguments leave it reading
// commands from the terminal (no -c, no script): a shell the human works
// in, not one that runs a script or wraps a program.
func interactive(args []string) bool {
	for _, a := range args[min(1, len(args)):] {
		if a == "-c" || !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}

// errNoShell: no shell of ours runs in the pane.
var errNoShell error = &failure.Error{
	Msg:  "found no shell in the shared terminal to take the job's kind of shell, directory and environment from",
	Hint: "ask the user to start a shell (bash, zsh, fish or sh) in the ptybridge terminal, then retry",
}

// environValue is the value of key in the environment pid started with.
func environValue(pid int, key string) string {
	for _, kv := range platform.Environ(pid) {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// shellProgram is the executable to run the job's shell with: the one
// the shared shell runs, else its name on PATH.
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
