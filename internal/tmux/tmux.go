// Package tmux runs the tmux program: Run runs every tmux command of the
// project, with a timeout and tmux's stderr in the error, but for the
// one that waits for the human (RunUntil: a popup returns when they close
// it). Only this package starts tmux. It always reaches the user's default
// server: $TMUX is removed from every call, so ptybridge and ptysend agree
// on the server whether or not either runs inside another tmux;
// TMUX_TMPDIR is honoured, as tmux itself does.
package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// callTimeout bounds every tmux call: the server answers in well under a
// millisecond, so a call this slow means a stuck server, not a busy one.
const callTimeout = 10 * time.Second

// ErrNoTmux means the tmux program is not installed or not on PATH.
var ErrNoTmux error = noTmux{}

type noTmux struct{}

func (noTmux) Error() string { return "tmux is not installed or not on PATH" }
func (noTmux) Hint() string {
	return "install tmux (e.g. sudo apt-get install tmux, or brew install tmux)"
}

// Env is the environment of every tmux call: ours without $TMUX, so the
// default server of this user is used even from inside another tmux.
func Env() []string {
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") {
			env = append(env, kv)
		}
	}
	return env
}

// Run runs one tmux command and returns its standard output. Every tmux
// call of the project goes through here. A failure carries tmux's stderr.
func Run(args ...string) (string, error) { return RunInput("", args...) }

// RunInput is Run with input on tmux's standard input (load-buffer -).
func RunInput(input string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	return run(ctx, input, args)
}

// RunUntil runs one tmux command that returns only once the human has
// done something (display-popup returns when its popup closes), without
// Run's time limit: ctx ends it.
func RunUntil(ctx context.Context, args ...string) (string, error) { return run(ctx, "", args) }

func run(ctx context.Context, input string, args []string) (string, error) {
	cmd := exec.CommandContext(ctx, "tmux", args...)
	cmd.Env = Env()
	cmd.Stdin = strings.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if errors.Is(err, exec.ErrNotFound) {
		return "", ErrNoTmux
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return "", fmt.Errorf("tmux %s: no answer from the tmux server within %v", args[0], callTimeout)
	}
	if ctx.Err() != nil {
		return "", fmt.Errorf("tmux %s: %w", args[0], ctx.Err())
	}
	// Some tmux commands report a missing target on stderr yet exit 0
	// (display-message in 3.3a), so any complaint counts as a failure.
	if err != nil || stderr.Len() > 0 {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", &Error{Args: args, Msg: msg}
	}
	return stdout.String(), nil
}

// Error is a tmux command that ran and failed.
type Error struct {
	Args []string
	Msg  string // what tmux printed on stderr
}

func (e *Error) Error() string { return "tmux " + e.Args[0] + ": " + e.Msg }

// IsMissingSession reports whether err is tmux saying that the target
// session or its server does not exist.
func IsMissingSession(err error) bool {
	var te *Error
	if !errors.As(err, &te) {
		return false
	}
	// A server that is exiting (its last session just ended) answers
	// "server exited unexpectedly" or "lost server".
	for _, s := range []string{"can't find session", "no server running", "error connecting to", "can't find pane", "can't find window",
		"server exited unexpectedly", "lost server"} {
		if strings.Contains(te.Msg, s) {
			return true
		}
	}
	return false
}

// SessionTarget is the exact-match target of a session (a bare name would
// also match any session whose name starts with it).
func SessionTarget(name string) string { return "=" + name + ":" }

// IsDuplicateSession reports whether err is tmux refusing to create a
// session that exists.
func IsDuplicateSession(err error) bool {
	var te *Error
	return errors.As(err, &te) && strings.Contains(te.Msg, "duplicate session")
}

// CursorLine is the line the cursor is on in pane, as tmux shows it
// (trailing blanks trimmed), with the cursor column and whether the pane
// is in a mode (copy mode), from one tmux call.
func CursorLine(pane string) (line string, col int, inMode bool, err error) {
	out, err := Run("display-message", "-p", "-t", pane, "#{pane_in_mode} #{cursor_x} #{cursor_y}",
		";", "capture-pane", "-p", "-t", pane)
	if err != nil {
		return "", 0, false, err
	}
	rows := strings.Split(out, "\n")
	var mode, y int
	if _, err := fmt.Sscanf(rows[0], "%d %d %d", &mode, &col, &y); err != nil {
		return "", 0, false, fmt.Errorf("unexpected answer from tmux: %q", rows[0])
	}
	if y+1 < len(rows) {
		line = rows[y+1]
	}
	return line, col, mode != 0, nil
}

// Exec replaces this process with tmux run with args (attaching the
// human's terminal), so that the terminal talks to tmux directly.
func Exec(args ...string) error {
	path, err := exec.LookPath("tmux")
	if err != nil {
		return ErrNoTmux
	}
	return syscall.Exec(path, append([]string{"tmux"}, args...), Env())
}
