package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// tmuxTimeout bounds every tmux call: the server answers in well under a
// millisecond, so a call this slow means a stuck server, not a busy one.
const tmuxTimeout = 10 * time.Second

// ErrNoTmux means the tmux program is not installed or not on PATH.
var ErrNoTmux = errors.New("tmux is not installed or not on PATH")

// tmuxEnv is the environment of every tmux call: ours without $TMUX, so the
// default server of this user is used even from inside another tmux.
func tmuxEnv() []string {
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMUX=") {
			env = append(env, kv)
		}
	}
	return env
}

// tmux runs one tmux command and returns its standard output. Every tmux
// call of the project goes through here. A failure carries tmux's stderr.
func tmux(args ...string) (string, error) { return tmuxInput("", args...) }

// tmuxInput is tmux with input on its standard input (load-buffer -).
func tmuxInput(input string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), tmuxTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "tmux", args...)
	cmd.Env = tmuxEnv()
	cmd.Stdin = strings.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if errors.Is(err, exec.ErrNotFound) {
		return "", ErrNoTmux
	}
	if ctx.Err() != nil {
		return "", fmt.Errorf("tmux %s: no answer from the tmux server within %v", args[0], tmuxTimeout)
	}
	// Some tmux commands report a missing target on stderr yet exit 0
	// (display-message in 3.3a), so any complaint counts as a failure.
	if err != nil || stderr.Len() > 0 {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", &TmuxError{Args: args, Msg: msg}
	}
	return stdout.String(), nil
}

// TmuxError is a tmux command that ran and failed.
type TmuxError struct {
	Args []string
	Msg  string // what tmux printed on stderr
}

func (e *TmuxError) Error() string { return "tmux " + e.Args[0] + ": " + e.Msg }

// isMissingSession reports whether err is tmux saying that the target
// session or its server does not exist.
func isMissingSession(err error) bool {
	var te *TmuxError
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

// sessionTarget is the exact-match target of a session (a bare name would
// also match any session whose name starts with it).
func sessionTarget(name string) string { return "=" + name + ":" }
