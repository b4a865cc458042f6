package session

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
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
		";", "set-option", "-p", "-t", t, "remain-on-exit", "on",
		";", "set-option", "-t", t, "-F", "@ptybridge_pane", "#{pane_id}",
		";", "set-option", "-t", t, "@ptybridge_relay", b.socketPath(),
		";", "pipe-pane", "-I", "-O", "-t", t, b.relayCommand())
	if err == nil {
		os.Remove(b.modePath()) // a new pane is not in copy mode
		if err := b.watchMode(); err != nil {
			return err
		}
	}
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
	if relayAlive(b.socketPath()) {
		return b.socketPath(), nil
	}
	return b.startRelay(false)
}

// replaceRelay starts a relay of our version in place of a live one of
// another version (left by an older ptybridge).
func (b Bridge) replaceRelay() (string, error) {
	// The old relay exits when its pipe closes; its socket file goes now,
	// so that the new relay can listen on the path at once.
	os.Remove(b.socketPath())
	return b.startRelay(true)
}

// startRelay (re)starts the relay of the bridge's shared pane. Unless
// replacing, a live relay of a bridge opened with another runtime
// directory (another environment) is used as it is.
func (b Bridge) startRelay(replacing bool) (string, error) {
	mine := b.socketPath()
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
	if !replacing && recorded != "" && recorded != mine && relayAlive(recorded) {
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
		";", "set-option", "-p", "-t", pane, "remain-on-exit", "on",
		";", "set-option", "-t", b.target(), "@ptybridge_pane", pane,
		";", "set-option", "-t", b.target(), "@ptybridge_relay", mine)
	if err == nil {
		err = b.watchMode()
	}
	if err != nil {
		return "", err
	}
	return mine, waitForRelay(mine, 5*time.Second)
}

// respawnShell starts a new shell in the shared pane after the agent's
// command ended the old one (remain-on-exit kept the pane), in dir, with a
// new relay: the old one watched the dead shell.
func (b Bridge) respawnShell(pane, dir string) error {
	os.Remove(b.socketPath())
	args := []string{"respawn-pane", "-t", pane}
	if dir != "" {
		args = append(args, "-c", dir)
	}
	_, err := tmux(append(args,
		";", "pipe-pane", "-t", pane,
		";", "pipe-pane", "-I", "-O", "-t", pane, b.relayCommand())...)
	if err != nil {
		return err
	}
	return waitForRelay(b.socketPath(), 5*time.Second)
}

// modePath is where tmux records whether the shared pane is in a mode
// (copy mode: the human is scrolling), so that ptysend knows it without
// running tmux on the path of every call.
func (b Bridge) modePath() string {
	return strings.TrimSuffix(b.socketPath(), ".sock") + ".mode"
}

// watchMode sets the pane-mode-changed hook that keeps modePath current.
// A path the nested quoting cannot carry records nothing: copy mode then
// goes unnoticed, and keys still never become copy-mode commands.
func (b Bridge) watchMode() error {
	path := b.modePath()
	if strings.ContainsAny(path, "'\"$`\\#") {
		return nil
	}
	_, err := tmux("set-hook", "-t", b.target(), "pane-mode-changed",
		fmt.Sprintf(`run-shell -b 'echo #{pane_in_mode} >"%s" 2>/dev/null'`, path))
	return err
}

// inCopyMode reports whether the human is scrolling in the shared pane.
func inCopyMode(b Bridge) bool {
	mode, err := os.ReadFile(b.modePath())
	return err == nil && strings.TrimSpace(string(mode)) == "1"
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
