package session

import (
	"errors"
	"fmt"
	"github.com/ptybridge/ptybridge/internal/markers"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// HistoryLimit is the scrollback of the shared pane, for the human: the
// agent's output never depends on it (it comes through the relay).
const HistoryLimit = 100000

// Bridge is one named shared session on the user's default tmux server.
type Bridge struct {
	Name       string
	RuntimeDir string
	// Exe is the program tmux runs as the relay: the running ptybridge or
	// ptysend, which both understand the hidden --relay flags.
	Exe string
}

// ValidateName refuses names tmux would silently rewrite.
func ValidateName(name string) error {
	if name == "" || strings.ContainsAny(name, ":.") {
		return &Error{
			Msg:  fmt.Sprintf("invalid session name %q", name),
			Hint: "a session name must be non-empty and contain no ':' or '.'",
		}
	}
	return nil
}

func (b Bridge) target() string     { return sessionTarget(b.Name) }
func (b Bridge) socketPath() string { return relaySocketPath(b.RuntimeDir, b.Name) }

// relayCommand is what pipe-pane runs, with -O (the pane's output to its
// stdin) and -I (its stdout to the pane's input, for typing).
func (b Bridge) relayCommand() string {
	// tmux expands formats in the command, so a literal '#' is doubled.
	q := func(s string) string { return markers.QuotePOSIX(strings.ReplaceAll(s, "#", "##")) }
	return fmt.Sprintf("exec %s --relay %s --relay-pane '#{pane_id}' --relay-pid '#{pane_pid}'",
		q(b.Exe), q(b.socketPath()))
}

// Open creates the session when it does not exist yet, with its first pane
// sized width x height, running shell in dir, and makes sure its relay
// runs. It does not attach.
func (b Bridge) Open(width, height int, shell, dir string) error {
	t := b.target()
	// The history-limit of a pane is fixed when the pane is made, so the
	// session starts on a placeholder and its first real pane is made after
	// the option is set, on the session only (the human's other sessions
	// keep theirs). default-shell makes that pane run the shell itself, not
	// through sh -c, so the pane's process is the human's shell.
	_, err := tmux("new-session", "-d", "-s", b.Name, "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "-c", dir, "cat",
		";", "set-option", "-t", t, "history-limit", fmt.Sprint(HistoryLimit),
		";", "set-option", "-t", t, "default-shell", shell,
		";", "new-window", "-k", "-t", "="+b.Name+":^", "-c", dir,
		";", "set-option", "-t", t, "-F", "@ptybridge_pane", "#{pane_id}",
		";", "set-option", "-t", t, "@ptybridge_relay", b.socketPath(),
		";", "pipe-pane", "-I", "-O", "-t", t, b.relayCommand())
	if err != nil && !isDuplicateSession(err) {
		return err
	}
	if err != nil { // it exists: make sure its relay is alive
		if _, err := b.ensureRelay(); err != nil {
			return err
		}
	}
	return waitForRelay(b.socketPath(), 5*time.Second)
}

func isDuplicateSession(err error) bool {
	var te *TmuxError
	return errors.As(err, &te) && strings.Contains(te.Msg, "duplicate session")
}

// AttachArgs is the tmux command line that attaches the human's terminal.
// destroy-unattached is set only once a client is attached: set on a
// session without clients, it destroys the session at once.
func (b Bridge) AttachArgs() []string {
	return []string{"tmux", "attach-session", "-t", b.target(), ";", "set-option", "-t", b.target(), "destroy-unattached", "on"}
}

// ensureRelay returns the socket of a live relay for the bridge, starting
// one when none answers. Fails with errNoSession when the session is gone.
func (b Bridge) ensureRelay() (string, error) {
	mine := b.socketPath()
	if relayAlive(mine) {
		return mine, nil
	}
	// display-message falls back to another session when the target does
	// not exist (tmux 3.3a), so the answer must name ours.
	out, err := tmux("display-message", "-p", "-t", b.target(), "#{session_name}\t#{@ptybridge_pane}\t#{@ptybridge_relay}\t#{pane_id}")
	fields := strings.Split(strings.TrimRight(out, "\n"), "\t")
	if isMissingSession(err) || err == nil && (len(fields) != 4 || fields[0] != b.Name) {
		return "", errNoSession
	}
	if err != nil {
		return "", err
	}
	pane, recorded, active := fields[1], fields[2], fields[3]
	// The bridge may have been opened with another runtime directory
	// (another environment): its relay is as good as ours.
	if recorded != "" && recorded != mine && relayAlive(recorded) {
		return recorded, nil
	}
	if pane == "" {
		pane = active
	} else if _, err := tmux("display-message", "-p", "-t", pane, "#{pane_id}"); err != nil {
		return "", &Error{
			Msg:  "the shared pane of the bridge session " + b.Name + " was closed",
			Hint: "ask the user to close every ptybridge terminal and run ptybridge again",
		}
	}
	// A relay that died may leave its pipe open in tmux: close it first.
	_, err = tmux("pipe-pane", "-t", pane,
		";", "pipe-pane", "-I", "-O", "-t", pane, b.relayCommand(),
		";", "set-option", "-t", b.target(), "@ptybridge_pane", pane,
		";", "set-option", "-t", b.target(), "@ptybridge_relay", mine)
	if err != nil {
		return "", err
	}
	return mine, waitForRelay(mine, 5*time.Second)
}

var errNoSession = errors.New("no bridge session")

func relayAlive(path string) bool {
	c, err := dialUnix(path)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// waitForRelay waits for a relay that tmux is starting. It polls, but only
// while a bridge is being set up, never on a command's path.
func waitForRelay(path string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for !relayAlive(path) {
		if time.Now().After(deadline) {
			return &Error{
				Msg:  "the output relay of the bridge did not start (socket " + path + ")",
				Hint: "check that " + os.Args[0] + " can run from inside tmux, then run ptybridge again",
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}

// Attach replaces this process with a tmux client attached to the bridge,
// so the human's terminal talks to tmux directly, as in a plain tmux.
func (b Bridge) Attach() error {
	path, err := exec.LookPath("tmux")
	if err != nil {
		return ErrNoTmux
	}
	args := b.AttachArgs()
	return syscall.Exec(path, args, tmuxEnv())
}
