package jobs

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// sharedShell is what a job takes from the shell of the shared terminal:
// its program, directory, and environment as the shell started (the
// kernel shows no other: --env carries what was exported since).
type sharedShell struct {
	PID     int
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
		// No shell of ours (ptybridge -- ssh HOST): the user's login shell.
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
	sh.Env = platform.Environ(sh.PID) // the supervisor leaves out tmux's (jobEnv)
	return sh, nil
}

// loginShell is $SHELL of the pane's process when ptysend knows it; else
// /bin/sh.
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
