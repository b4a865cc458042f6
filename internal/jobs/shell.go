// Package jobs runs long-running jobs of the agent's (dev servers,
// watchers, long builds) where the human sees them: each in a window of
// its own in the bridge session, beside the shared terminal.
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
//     the END marker with the job's exit status;
//   - its relay, which pipe-pane connects to the window both ways, the
//     same program as the shared pane's (internal/relay): it keeps the
//     job's output and stderr in bounded memory, its status, types into
//     the window, and answers the job modes.
//
// The modes (--job, --jobs, --job-output, --job-wait, --job-stop,
// --job-send, --job-keys, --job-screen) are the client side. The package
// never types into the shared pane.
package jobs

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// sharedShell is what a job takes from the shell of the shared terminal:
// its kind (the program), its directory, and its environment.
//
// The environment is the one the shell was started with (the kernel shows
// nothing else of a process's environment). Variables the human or the
// agent exported in that shell since (export, set -x), and its functions,
// aliases and unexported variables, are not carried: pass them with
// --env, or in the job's command.
type sharedShell struct {
	PID     int
	Program string // the shell's executable
	Name    string // as the human would call it: bash, zsh, fish, sh
	Dir     string
	Env     []string
}

// findSharedShell finds the shell of the bridge's shared pane without a
// turn at the pane (a job starts while the pane is busy): the relay's
// status and one look (pane.Peek).
func findSharedShell(b bridge.Bridge) (sharedShell, error) {
	status, err := b.Status()
	if err != nil {
		return sharedShell{}, err
	}
	st, err := pane.Peek(status, b)
	if err != nil {
		return sharedShell{}, err
	}
	var sh sharedShell
	switch {
	case st.Shell != nil:
		sh = sharedShell{PID: st.Shell.PID, Name: st.Shell.Name, Program: shellProgram(st.Shell.PID, st.Shell.Name)}
	case st.Kind == pane.Unsupported:
		return sharedShell{}, &failure.Error{
			Msg: fmt.Sprintf("the shared terminal runs %s, a shell ptysend cannot start jobs in", st.Foreground.Name),
			Hint: fmt.Sprintf("ptysend supports %s: ask the user to start one of them in the ptybridge terminal, then retry",
				markers.Supported),
		}
	case platform.OwnedByUs(status.PanePID):
		// The pane runs no shell of ours (ptybridge -- ssh HOST): the job
		// gets the user's login shell, with the pane's directory and
		// environment.
		sh = sharedShell{PID: status.PanePID, Program: loginShell(status.PanePID)}
		sh.Name = filepath.Base(sh.Program)
	default:
		return sharedShell{}, &failure.Error{
			Msg:  "found no shell in the shared terminal to take the job's kind of shell, directory and environment from",
			Hint: "ask the user to start a shell (bash, zsh, fish or sh) in the ptybridge terminal, then retry",
		}
	}
	if sh.Dir, err = platform.Cwd(sh.PID); err != nil {
		return sharedShell{}, &failure.Error{
			Msg:  "cannot read the shared shell's directory: " + err.Error(),
			Hint: "ptysend must run as the same user as ptybridge; or give the job's directory with --cwd",
		}
	}
	for _, kv := range platform.Environ(sh.PID) {
		key, _, ok := bytes.Cut([]byte(kv), []byte("="))
		switch {
		case !ok, len(key) == 0:
		case string(key) == "TMUX", string(key) == "TMUX_PANE", string(key) == "PTYBRIDGE_JOB":
			// tmux sets its own for the job's window; the supervisor names the job.
		default:
			sh.Env = append(sh.Env, kv)
		}
	}
	return sh, nil
}

// loginShell is the user's login shell as the pane's process was started
// with it ($SHELL), when it is one ptysend knows; else /bin/sh.
func loginShell(pid int) string {
	for _, kv := range platform.Environ(pid) {
		if login, ok := bytes.CutPrefix([]byte(kv), []byte("SHELL=")); ok {
			if _, known := markers.ShellFor(string(login)); known {
				if p, err := exec.LookPath(string(login)); err == nil {
					return p
				}
			}
		}
	}
	return "/bin/sh"
}

// shellProgram is the executable of the shell pid: what the kernel says
// it runs (not busybox, whose applet is the name), else the name on PATH.
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
