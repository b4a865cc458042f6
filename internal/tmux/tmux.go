// Package tmux runs the tmux program, the only package that starts it, always on the user's default
// server (TMUX_TMPDIR honoured, $TMUX not): ptybridge and ptysend agree on it even in another tmux.
package tmux

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// callTimeout bounds every call: the server answers in under a millisecond.
const callTimeout = 10 * time.Second

var ErrNoTmux error = noTmux{}

type noTmux struct{}

func (noTmux) Error() string { return "tmux is not installed or not on PATH" }
func (noTmux) Hint() string {
	return "install tmux (e.g. sudo apt-get install tmux, or brew install tmux)"
}

func env() []string {
	return slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "TMUX=") })
}

// Run runs one tmux command; a failure carries tmux's stderr.
func Run(args ...string) (string, error) { return RunInput("", args...) }

// RunInput is Run with input on tmux's standard input (load-buffer -).
func RunInput(input string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	return run(ctx, input, args)
}

// RunUntil is Run limited by ctx alone, for a command that waits for the human (display-popup).
func RunUntil(ctx context.Context, args ...string) (string, error) { return run(ctx, "", args) }

func run(ctx context.Context, input string, args []string) (string, error) {
	cmd := exec.CommandContext(ctx, "tmux", args...)
	cmd.Env = env()
	cmd.Stdin = strings.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return "", ErrNoTmux
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", fmt.Errorf("tmux %s: no answer from the tmux server within %v", args[0], callTimeout)
	case ctx.Err() != nil:
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

// IsMissingSession: tmux says the target or its server is gone (or exiting, its last session over).
func IsMissingSession(err error) bool {
	return said(err, "can't find session", "no server running", "error connecting to", "can't find pane", "can't find window",
		"server exited unexpectedly", "lost server")
}

// SessionTarget is a session's exact target (a bare name matches a prefix).
func SessionTarget(name string) string { return "=" + name + ":" }

// IsDuplicateSession reports tmux refusing a session that exists.
func IsDuplicateSession(err error) bool { return said(err, "duplicate session") }

// IsServerEnding: the command reached a server that was exiting (its last session had just
// closed). The next command that may start a server starts a new one.
func IsServerEnding(err error) bool { return said(err, "server exited unexpectedly", "lost server") }

func said(err error, msgs ...string) bool {
	var te *Error
	return errors.As(err, &te) && slices.ContainsFunc(msgs, func(m string) bool { return strings.Contains(te.Msg, m) })
}

// Screen is a pane as the human sees it (a full-screen program's alternate screen), cursor from 0.
type Screen struct {
	Session          string // the pane's session (tmux 3.3a answers for another one when ours is gone)
	Shared           string // the session's shared pane (@ptybridge_pane), "" when it has none
	Pane             string
	Rows             []string
	CursorX, CursorY int
	Width, Height    int
	Alternate        bool // a full-screen program drew it
	InMode           bool // copy mode: the human scrolls back
}

const screenFormat = "#{session_name}\t#{@ptybridge_pane}\t#{pane_id}\t#{cursor_x}\t#{cursor_y}\t#{pane_width}\t#{pane_height}\t#{alternate_on}\t#{pane_in_mode}"

// Capture reads a pane's screen: display-message and capture-pane at once.
func Capture(target string) (Screen, error) {
	out, err := Run("display-message", "-p", "-t", target, screenFormat, ";", "capture-pane", "-p", "-t", target)
	if err != nil {
		return Screen{}, err
	}
	return parseScreen(out)
}

func parseScreen(out string) (Screen, error) {
	head, rows, _ := strings.Cut(out, "\n")
	f := strings.Split(head, "\t")
	var s Screen
	var alt, mode int
	_, err := fmt.Sscan(strings.Join(f[min(3, len(f)):], " "), &s.CursorX, &s.CursorY, &s.Width, &s.Height, &alt, &mode)
	if len(f) != 9 || err != nil {
		return Screen{}, fmt.Errorf("unexpected answer from tmux: %q", head)
	}
	s.Session, s.Shared, s.Pane = f[0], f[1], f[2]
	s.Alternate, s.InMode = alt != 0, mode != 0
	s.Rows = strings.Split(strings.TrimSuffix(rows, "\n"), "\n")
	for len(s.Rows) < s.Height {
		s.Rows = append(s.Rows, "")
	}
	return s, nil
}

// CursorLine is the row the cursor is on, trailing blanks trimmed.
func (s Screen) CursorLine() string { return strings.TrimRight(s.CursorRow(), " ") }

// CursorRow is the cursor's row padded to the cursor (a prompt's space, which capture-pane trims).
func (s Screen) CursorRow() string {
	if s.CursorY < 0 || s.CursorY >= len(s.Rows) {
		return ""
	}
	row := []rune(strings.TrimRight(s.Rows[s.CursorY], " "))
	for len(row) < s.CursorX {
		row = append(row, ' ')
	}
	return string(row)
}

// Exec replaces this process with tmux, on the human's terminal.
func Exec(args ...string) error {
	path, err := exec.LookPath("tmux")
	if err != nil {
		return ErrNoTmux
	}
	return syscall.Exec(path, append([]string{"tmux"}, args...), env())
}

// Foreground runs tmux as a child on our terminal and waits; its exit (session ended) is no error.
func Foreground(args ...string) error {
	cmd := exec.Command("tmux", args...)
	if cmd.Err != nil { // from its exec.LookPath
		return ErrNoTmux
	}
	cmd.Env = env()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); !errors.As(err, new(*exec.ExitError)) {
		return err
	}
	return nil
}
