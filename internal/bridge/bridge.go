// Package bridge owns the bridge session: creating it in tmux with its
// shared pane and relay, attaching the human's terminal, repairing the
// relay, its private files, and reaching the relay for a turn at the pane
// or a query. It does not look at what the pane runs (internal/pane).
package bridge

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/rundir"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// HistoryLimit is the shared pane's scrollback, for the human: the agent's
// output comes through the relay.
const HistoryLimit = 100000

type Bridge struct {
	Name       string
	RuntimeDir string
	// Exe is the program tmux runs as the relay: ptybridge or ptysend.
	Exe string
	// asked is the turn AskTurn asked for, which Turn takes up.
	asked *askedTurn
}

// ValidateName refuses names tmux would silently rewrite (':' and '.' to '_', '\' and '$'
// escaped), and '"', which would end the word the session's hooks quote it in (Linger).
func ValidateName(name string) error {
	if name == "" || strings.ContainsAny(name, `:.\$"`) {
		return &failure.Error{
			Msg:  fmt.Sprintf("invalid session name %q", name),
			Hint: `a session name must be non-empty and contain none of : . \ $ "`,
		}
	}
	return nil
}

func (b Bridge) target() string     { return tmux.SessionTarget(b.Name) }
func (b Bridge) SocketPath() string { return rundir.SocketPath(b.RuntimeDir, b.Name) }

var relayEscapes = strings.NewReplacer("#", "##", "%", "%%")

// RelayCommand is what pipe-pane -I -O runs: the relay on socket, for the
// shared pane or a job window's.
func (b Bridge) RelayCommand(socket string, job *relay.JobConfig) string {
	// pipe-pane expands formats in the command and then strftime's '%' sequences: a literal '#'
	// and '%' are doubled (a session named "a b" has the socket a%20b.sock, which was the month).
	q := func(s string) string { return markers.QuotePOSIX(relayEscapes.Replace(s)) }
	cmd := fmt.Sprintf("exec %s --relay %s --relay-pane '#{pane_id}' --relay-pid '#{pane_pid}'", q(b.Exe), q(socket))
	if job != nil {
		js, _ := json.Marshal(job)
		cmd += fmt.Sprintf(" --relay-job %x", js)
	}
	return cmd
}

// Open creates the session unless it exists (created: it did), its pane running shell (or
// command: ptybridge -- ssh web1) in dir, and makes sure its relay runs.
func (b Bridge) Open(width, height int, shell, dir string, command ...string) (created bool, err error) {
	os.Remove(b.lingerFile()) // a terminal opens it: it lingers no more
	t := b.target()
	// A pane's history-limit is fixed when it is made, so the session
	// starts on a placeholder and its real pane comes after the option is
	// set, on the session only. default-shell makes that pane run the
	// shell itself, not through sh -c: the pane's process is the shell.
	args := []string{"new-session", "-d", "-s", b.Name, "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "-c", dir, "cat",
		";", "set-option", "-t", t, "history-limit", fmt.Sprint(HistoryLimit),
		";", "set-option", "-t", t, "destroy-unattached", "off", // even when the user's is on: see attachArgs
		";", "set-option", "-t", t, "default-shell", shell,
		";", "new-window", "-k", "-t", "=" + b.Name + ":^", "-c", dir}
	args = append(append(args, commandArgs(command, b.ExitFile())...),
		";", "set-option", "-p", "-t", t, "remain-on-exit", "on",
		";", "set-option", "-t", t, "@ptybridge_command", strings.Join(command, " "),
		";", "set-option", "-t", t, "-F", "@ptybridge_pane", "#{pane_id}",
		";", "set-option", "-t", t, "@ptybridge_relay", b.SocketPath(),
		";", "pipe-pane", "-I", "-O", "-t", t, b.RelayCommand(b.SocketPath(), nil))
	_, err = tmux.Run(args...)
	// A bridge closed just before (its terminal closed, then ptybridge again at once) may leave
	// its server exiting as we reach it: the next try starts a server of its own.
	for try := 0; tmux.IsServerEnding(err) && try < 5; try++ {
		time.Sleep(50 * time.Millisecond)
		_, err = tmux.Run(args...)
	}
	switch {
	case err == nil:
		created = true
		os.Remove(b.ExitFile())
		os.Remove(confirmFile(b.SocketPath()))
		err = b.watchMode()
	case tmux.IsDuplicateSession(err): // it exists: make sure its relay is alive
		_, err = b.startRelay(false)
	}
	if err == nil {
		err = setReapHook()
	}
	if err == nil {
		err = relay.WaitFor(b.SocketPath(), 5*time.Second)
	}
	if err != nil {
		if created { // no session is left that no terminal would ever end
			tmux.Run("kill-session", "-t", t)
		}
		return false, err
	}
	return created, nil
}

// Attached says whether a terminal is attached to the session (false when that cannot be told).
func (b Bridge) Attached() bool {
	out, err := tmux.Run("display-message", "-p", "-t", b.target(), "#{session_name} #{session_attached}")
	return err == nil && strings.TrimSpace(out) != b.Name+" 0" && strings.HasPrefix(out, b.Name+" ")
}

// The session ends when its last terminal leaves, as tmux's destroy-unattached would have it. That
// option stays off: every tmux released so far (3.3a to 3.7c) crashes, taking every session of the
// server with it, when the option destroys a session that a terminal still shows while it is
// suspended (C-b C-z) or on its way out (C-b d), once any other client comes or goes (upstream
// GitHub issue 5497, fixed after 3.7c). Instead a server-wide hook of ours, at an index of its own
// beside the user's hooks, ends each session marked reapOption that no terminal shows whenever a
// terminal leaves a session (a lingering one lingers: linger.go): kill-session lets go of every
// terminal first.
// Session ids, not names, go into the command tmux parses: a name may hold quotes or ';'.
const (
	reapOption = "@ptybridge_reap"
	reapIndex  = "[6973]"
	reapHook   = `run-shell -C "#{S:#{?` + reapOption + `,#{?session_attached_list,,#{?` + lingerOption +
		`,#{` + lingerHookOption + `} ;,kill-session -t '#{session_id}' ;}},}}"`
)

// attachArgs attach the terminal and mark the session to end with its last terminal (the mark
// comes with the first terminal: a session still waiting for it is not ended).
func (b Bridge) attachArgs() []string {
	return []string{"attach-session", "-t", b.target(),
		";", "set-option", "-t", b.target(), "destroy-unattached", "off",
		";", "set-option", "-t", b.target(), reapOption, "on"}
}

// setReapHook sets the hook on the session's server (again: the same index), before attaching.
func setReapHook() error {
	_, err := tmux.Run("set-hook", "-g", "client-detached"+reapIndex, reapHook,
		";", "set-hook", "-g", "client-session-changed"+reapIndex, reapHook)
	if err != nil {
		return &failure.Error{Msg: "tmux refused the hook that ends the shared terminal's session with its last terminal: " + err.Error(),
			Hint: "ptybridge needs tmux 3.2 or later (see tmux -V); upgrade tmux"}
	}
	return nil
}

func (b Bridge) Attach() error { return tmux.Exec(b.attachArgs()...) }

// EndIfAbandoned, called before Open, ends the session that Open creates if ptybridge is told to
// stop (its terminal closed, the human pressed Ctrl-C) before it attaches: the hook that ends a
// session with its last terminal needs a terminal to leave, and none ever came. opened passes on
// what Open said; stop ends the watch, before attaching. A stop that comes once a signal was
// taken waits for the session's end and ptybridge's exit: an error of a tmux command the same
// signal interrupted must not end ptybridge first.
func (b Bridge) EndIfAbandoned() (opened func(created bool), stop func()) {
	signals, created, stopped, done := make(chan os.Signal, 1), make(chan bool, 1), make(chan struct{}), make(chan struct{})
	signal.Notify(signals, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		defer close(done)
		select {
		case sig := <-signals:
			if <-created { // once Open is done: it may be creating the session now
				tmux.Run("kill-session", "-t", b.target())
			}
			os.Exit(128 + int(sig.(syscall.Signal)))
		case <-stopped:
		}
	}()
	return func(c bool) { created <- c }, sync.OnceFunc(func() {
		signal.Stop(signals)
		close(stopped)
		<-done
	})
}

var errNoSession = errors.New("no bridge session")

// startRelay returns the socket of a live relay of the shared pane, even
// one of another runtime directory, starting one when none answers;
// replacing, it starts ours in place of another version's (which exits
// when its pipe closes). errNoSession: the session is gone.
func (b Bridge) startRelay(replacing bool) (string, error) {
	mine := b.SocketPath()
	if replacing {
		os.Remove(mine) // so that the new relay can listen on the path at once
	} else if relay.Alive(mine) {
		return mine, nil
	}
	// display-message falls back to another session when the target does
	// not exist (tmux 3.3a), so the answer must name ours.
	out, err := tmux.Run("display-message", "-p", "-t", b.target(), "#{session_name}\t#{@ptybridge_pane}\t#{@ptybridge_relay}\t#{pane_id}\t#{"+confirmOption+"}")
	fields := strings.Split(strings.TrimRight(out, "\n"), "\t")
	if tmux.IsMissingSession(err) || err == nil && (len(fields) != 5 || fields[0] != b.Name) {
		return "", errNoSession
	}
	if err != nil {
		return "", err
	}
	pane, recorded, active, confirm := fields[1], fields[2], fields[3], fields[4]
	if !replacing && recorded != "" && recorded != mine && relay.Alive(recorded) {
		return recorded, nil
	}
	if confirm == "on" {
		if err := mirrorConfirm(mine); err != nil {
			return "", err
		}
	}
	if pane == "" {
		pane = active
	} else if _, err := tmux.Run("display-message", "-p", "-t", pane, "#{pane_id}"); err != nil {
		return "", &failure.Error{
			Msg:  "the shared pane of the bridge session " + b.Name + " was closed",
			Hint: "ask the user to close every ptybridge terminal and run ptybridge again",
		}
	}
	// A relay that died may leave its pipe open in tmux: close it first.
	_, err = tmux.Run("pipe-pane", "-t", pane,
		";", "pipe-pane", "-I", "-O", "-t", pane, b.RelayCommand(mine, nil),
		";", "set-option", "-p", "-t", pane, "remain-on-exit", "on",
		";", "set-option", "-t", b.target(), "@ptybridge_pane", pane,
		";", "set-option", "-t", b.target(), "@ptybridge_relay", mine)
	if err == nil {
		err = b.watchMode()
	}
	if err != nil {
		return "", err
	}
	return mine, relay.WaitFor(mine, 5*time.Second)
}

// RespawnShell starts a new shell and relay in the shared pane, kept by
// remain-on-exit after the agent's command ended the old shell.
func (b Bridge) RespawnShell(pane, dir string) error {
	os.Remove(b.ModeFile(pane))
	os.Remove(b.SocketPath())
	args := []string{"respawn-pane", "-t", pane}
	if dir != "" {
		args = append(args, "-c", dir)
	}
	_, err := tmux.Run(append(args,
		";", "pipe-pane", "-t", pane,
		";", "pipe-pane", "-I", "-O", "-t", pane, b.RelayCommand(b.SocketPath(), nil))...)
	if err != nil {
		return err
	}
	return relay.WaitFor(b.SocketPath(), 5*time.Second)
}

func (b Bridge) File(ext string) string { return strings.TrimSuffix(b.SocketPath(), ".sock") + ext }

// ModeFile is where tmux records a pane's copy mode, for calls to read.
func (b Bridge) ModeFile(pane string) string { return b.File(".mode." + pane) }

// watchMode keeps the mode files current. A path the nested quoting
// cannot carry records nothing: copy mode then goes unnoticed, and keys
// still never become copy-mode commands.
func (b Bridge) watchMode() error {
	path := b.File(".mode.")
	if strings.ContainsAny(path, "'\"$`\\#") {
		return nil
	}
	_, err := tmux.Run("set-hook", "-t", b.target(), "pane-mode-changed",
		fmt.Sprintf(`run-shell -b 'echo #{pane_in_mode} >"%s#{pane_id}" 2>/dev/null'`, path))
	return err
}

func (b Bridge) InCopyMode(pane string) bool {
	mode, err := os.ReadFile(b.ModeFile(pane))
	return err == nil && strings.TrimSpace(string(mode)) == "1"
}

func DefaultName() string { return "ptybridge-" + rundir.UserName() }

// LoginShell is $SHELL, else the user's from /etc/passwd, else /bin/sh.
func LoginShell() string {
	if s := os.Getenv("SHELL"); s != "" {
		return s
	}
	return cmp.Or(platform.LoginShellOf(os.Getuid()), "/bin/sh")
}

// A bridge opened with a command (ptybridge -- ssh web1) runs it instead
// of the user's shell; when it ends, so does the session, and the human's
// terminals read its exit status in ExitFile. sh -m (job control) makes it
// the terminal's foreground process group: ptysend sees ssh, not sh.
func commandArgs(command []string, exitFile string) []string {
	if len(command) == 0 {
		return nil
	}
	words := []string{"exec", "sh", "-mc", markers.QuotePOSIX(commandRunner), markers.QuotePOSIX(exitFile)}
	for _, w := range command {
		words = append(words, markers.QuotePOSIX(w))
	}
	return []string{strings.Join(words, " ")}
}

// commandRunner is that sh's script: $0 is the exit file.
const commandRunner = `"$@"; s=$?; printf '%s\n' "$s" >"$0"; exit "$s"`

func IsCommandRunner(argv []string) bool {
	return len(argv) >= 4 && argv[0] == "sh" && argv[1] == "-mc" && argv[2] == commandRunner
}

func (b Bridge) Exists() bool {
	out, err := tmux.Run("display-message", "-p", "-t", b.target(), "#{session_name}")
	return err == nil && strings.TrimSpace(out) == b.Name
}

func (b Bridge) ExitFile() string { return b.File(".exit") }

func (b Bridge) ClosePane(pane string, panePID int) {
	watch, stopWatching := context.WithCancel(context.Background())
	defer stopWatching()
	if exited := platform.WatchExit(watch, panePID); exited != nil {
		select {
		case <-exited:
		case <-time.After(2 * time.Second):
		}
	}
	tmux.Run("kill-pane", "-t", pane)
}

// CommandEnded is what the human's terminal says once the bridge's
// command ended, or "" when it detached.
func (b Bridge) CommandEnded(command []string, sinceNano int64) string {
	how := ""
	if fi, err := os.Stat(b.ExitFile()); err == nil && fi.ModTime().UnixNano() >= sinceNano {
		status, _ := os.ReadFile(b.ExitFile())
		how = " with exit status " + strings.TrimSpace(string(status))
	} else if b.Exists() { // the human detached: the bridge goes on
		return ""
	}
	return fmt.Sprintf("ptybridge: %s ended%s; the shared terminal %s is closed", strings.Join(command, " "), how, b.Name)
}

// AttachAndWait attaches the human's terminal as a child process.
func (b Bridge) AttachAndWait() error {
	signal.Ignore(syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTSTP)
	defer signal.Reset(syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTSTP)
	return tmux.Foreground(b.attachArgs()...)
}

// ptybridge --confirm: a session option, set by ptybridge and never by
// ptysend, so the agent cannot turn it off. A file beside the relay socket
// mirrors it, so that a call learns it with a stat instead of a tmux
// process (~4 ms of a ~5 ms call); whoever starts a relay copies it.
const confirmOption = "@ptybridge_confirm"

func confirmFile(socket string) string { return strings.TrimSuffix(socket, ".sock") + ".confirm" }

func (b Bridge) RequireConfirm() error {
	out, err := tmux.Run("set-option", "-t", b.target(), confirmOption, "on",
		";", "display-message", "-p", "-t", b.target(), "#{@ptybridge_relay}")
	if err != nil {
		return err
	}
	return mirrorConfirm(cmp.Or(strings.TrimSpace(out), b.SocketPath()))
}

func mirrorConfirm(socket string) error {
	return os.WriteFile(confirmFile(socket), []byte("on\n"), 0o600)
}

// ConfirmRequired is true unless the mirror is absent: better ask too often.
func ConfirmRequired(socket string) bool {
	_, err := os.Stat(confirmFile(socket))
	return !errors.Is(err, fs.ErrNotExist)
}
