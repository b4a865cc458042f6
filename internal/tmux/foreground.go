package tmux

import (
	"errors"
	"os"
	"os/exec"
)

// Foreground runs tmux with args as a child on this process's terminal
// (attaching the human's terminal) and waits for it. A tmux that exits
// because the session ended is no failure.
func Foreground(args ...string) error {
	path, err := exec.LookPath("tmux")
	if err != nil {
		return ErrNoTmux
	}
	cmd := exec.Command(path, args...)
	cmd.Env = Env()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return nil
	}
	return err
}
