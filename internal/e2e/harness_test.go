// Package e2e tests ptybridge and ptysend end to end: the real binaries,
// a real tmux server per test and a real pseudo-terminal playing the human.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ptybridge/ptybridge/internal/bridgetest"
)

// bin holds the ptybridge, ptysend and ptysend-mcp binaries built for this run.
var bin string

// hangGuard bounds every wait of the harness so that a broken build fails
// with a message instead of hanging the run. It is no performance limit.
const hangGuard = 30 * time.Second

func TestMain(m *testing.M) {
	if os.Getenv(fakeREPLEnv) != "" {
		os.Exit(runFakeREPL())
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: tmux is required for these tests and is not on PATH: install it (apt-get install tmux)")
		os.Exit(1)
	}
	dir, err := os.MkdirTemp("", "ptybridge-bin")
	if err != nil {
		panic(err)
	}
	args := []string{"build", "-o", dir + "/"}
	if portable {
		args = append(args, "-tags", "portable")
	}
	build := exec.Command("go", append(args, "../../cmd/ptybridge", "../../cmd/ptysend", "../../cmd/ptysend-mcp")...)
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as scripts/bridge builds them
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building the binaries failed:", err)
		os.Exit(1)
	}
	// The test user (asUser) runs them too.
	if err := os.Chmod(dir, 0o755); err != nil {
		panic(err)
	}
	bin = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// bridge is one test's world: a private tmux server, runtime directory and
// home, and the terminals of the human.
type bridge struct {
	t     *testing.T
	dir   string // short: tmux socket paths are limited to ~104 bytes
	env   []string
	name  string
	user  *bridgetest.User // who runs every process of the world; nil: we do
	mu    sync.Mutex
	terms []*terminal
}

type option func(*bridge)

// withShell runs the given shell as the human's $SHELL.
func withShell(path string) option {
	return func(b *bridge) { b.setenv("SHELL", path) }
}

// withEnv sets one more variable for every process of the test.
func withEnv(key, value string) option { return func(b *bridge) { b.setenv(key, value) } }

// withHomeFile writes a file (an rc file of the human's shell, say) at
// name, relative to the test's private $HOME, making its directories.
func withHomeFile(name, content string) option {
	return func(b *bridge) {
		path := filepath.Join(b.getenv("HOME"), name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			b.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			b.t.Fatal(err)
		}
	}
}

// testHuman is the test user whose sudo asks for a password, created by
// scripts/test-deps, and testHumanPassword that password.
const (
	testHuman         = "ptb-human"
	testHumanPassword = "ptb-human-pw"
)

// asUser runs the whole world of the test as another user of the
// machine: the private tmux server, ptybridge in the human's terminal,
// the shell, every ptysend call and the harness's own tmux calls. The
// test's directory is theirs. A missing user fails the test.
func asUser(name string) option {
	return func(b *bridge) {
		u, err := bridgetest.LookupUser(name)
		if err != nil {
			b.t.Fatal(err)
		}
		b.user, b.name = u, "ptybridge-"+name
		b.setenv("USER", name)
		b.setenv("LOGNAME", name)
	}
}

// newWorld prepares the private environment without opening a terminal.
func newWorld(t *testing.T, opts ...option) *bridge {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "ptb")
	if err != nil {
		t.Fatal(err)
	}
	b := &bridge{t: t, dir: dir, name: "ptybridge-" + currentUser(), env: bridgetest.Env(dir, bin)}
	t.Cleanup(b.cleanup)
	for _, o := range opts {
		o(b)
	}
	if err := b.user.Own(dir); err != nil {
		t.Fatal(err)
	}
	return b
}

// startBridge opens the shared terminal as a human would and waits until
// the shell in it is ready.
func startBridge(t *testing.T, opts ...option) *bridge {
	t.Helper()
	b := newWorld(t, opts...)
	b.openTerminal()
	b.waitReady()
	return b
}

func currentUser() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	out, _ := exec.Command("id", "-un").Output()
	return strings.TrimSpace(string(out))
}

func (b *bridge) setenv(key, value string) {
	prefix := key + "="
	for i, kv := range b.env {
		if strings.HasPrefix(kv, prefix) {
			b.env[i] = prefix + value
			return
		}
	}
	b.env = append(b.env, prefix+value)
}

func (b *bridge) getenv(key string) string {
	for _, kv := range b.env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

func (b *bridge) runtimeDir() string { return b.getenv("PTYBRIDGE_RUNTIME_DIR") }

func (b *bridge) cleanup() {
	b.mu.Lock()
	terms := b.terms
	b.mu.Unlock()
	for _, term := range terms {
		term.close()
	}
	bridgetest.Remove(b.user, b.env, b.dir)
}

// tmux runs a tmux command against the test's private server.
func (b *bridge) tmux(args ...string) (string, error) { return bridgetest.Tmux(b.user, b.env, args...) }

// mustTmux is tmux for commands that must succeed.
func (b *bridge) mustTmux(args ...string) string {
	b.t.Helper()
	out, err := b.tmux(args...)
	if err != nil {
		b.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimRight(out, "\n")
}

// terminal is one terminal window of the human, running ptybridge.
type terminal struct {
	*bridgetest.Terminal
	shown lockedBuffer
}

// clientOf is the tmux client that term's ptybridge became (it execs tmux attach-session).
func (b *bridge) clientOf(term *terminal) string {
	b.t.Helper()
	pid := strconv.Itoa(term.Cmd.Process.Pid)
	clients := b.mustTmux("list-clients", "-F", "#{client_pid} #{client_name}")
	for line := range strings.Lines(clients) {
		if p, name, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " "); p == pid {
			return name
		}
	}
	b.t.Fatalf("no tmux client of pid %s among:\n%s", pid, clients)
	return ""
}

// openTerminal starts ptybridge in a new pseudo-terminal.
func (b *bridge) openTerminal(args ...string) *terminal {
	b.t.Helper()
	return b.openTerminalOf(filepath.Join(bin, "ptybridge"), args...)
}

// openTerminalOf is openTerminal, of the ptybridge binary exe.
func (b *bridge) openTerminalOf(exe string, args ...string) *terminal {
	b.t.Helper()
	term := &terminal{}
	var err error
	term.Terminal, err = bridgetest.Open(b.user, exe, b.env, b.dir, &term.shown, args...)
	if err != nil {
		b.t.Fatal(err)
	}
	b.mu.Lock()
	b.terms = append(b.terms, term)
	b.mu.Unlock()
	return term
}

// typeKeys types as the human does, in the human's terminal.
func (term *terminal) typeKeys(s string) { term.Type(s) }

// screen is everything the terminal has shown so far.
func (term *terminal) screen() string { return term.shown.String() }

// close hangs up the terminal, as when the human closes the window.
func (term *terminal) close() { term.Close(hangGuard) }

// exited waits for ptybridge (the tmux client it became) to exit.
func (term *terminal) exited(t *testing.T) int {
	t.Helper()
	select {
	case <-term.Done:
	case <-time.After(hangGuard):
		t.Fatalf("ptybridge did not exit; the terminal showed:\n%s", term.screen())
	}
	return term.Cmd.ProcessState.ExitCode()
}

// waitReady waits until a terminal is attached and the shell runs.
func (b *bridge) waitReady() {
	b.t.Helper()
	b.waitFor("the bridge session to have a terminal attached", func() bool {
		// display-message answers for another session when ours does not
		// exist yet (tmux 3.3a): the name must be checked.
		out, err := b.tmux("display-message", "-p", "-t", "="+b.name+":", "#{session_name} #{session_attached}")
		name, attached, _ := strings.Cut(strings.TrimSpace(out), " ")
		return err == nil && name == b.name && attached != "0"
	})
	// Until the shell has drawn its first prompt, the pane may still run
	// tmux's child before the shell's exec, or a shell reading its rc files.
	b.waitFor("the shell's first prompt", func() bool {
		out, err := b.tmux("capture-pane", "-p", "-t", "="+b.name+":")
		return err == nil && strings.TrimSpace(out) != ""
	})
}

// waitFor polls cond until it holds. The deadline guards against hangs
// only; it measures nothing.
func (b *bridge) waitFor(what string, cond func() bool) {
	b.t.Helper()
	deadline := time.Now().Add(hangGuard)
	for !cond() {
		if time.Now().After(deadline) {
			pane, _ := b.tmux("capture-pane", "-p", "-J", "-t", "="+b.name+":")
			for i, term := range b.terms { // what ptybridge said, if it ended: its last words
				shown := term.screen()
				b.t.Logf("terminal %d ends with: %q", i, shown[max(0, len(shown)-600):])
			}
			b.t.Fatalf("gave up waiting for %s; the pane shows:\n%s", what, pane)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// result is what a ptysend run returned.
type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %q\nstderr: %q", r.code, r.stdout, r.stderr)
}

// send runs ptysend with args, stdin from /dev/null.
func (b *bridge) send(args ...string) result {
	b.t.Helper()
	return b.sendWith(nil, args...)
}

// sendWith runs ptysend with args and the given stdin (nil: /dev/null).
func (b *bridge) sendWith(stdin io.Reader, args ...string) result {
	b.t.Helper()
	return b.resultOf(b.ptysend(stdin, args...))
}

// resultOf runs cmd, a ptysend.
func (b *bridge) resultOf(cmd *exec.Cmd) result {
	b.t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctxErr := cmd.Err; ctxErr != nil {
		b.t.Fatal(ctxErr)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		b.t.Fatalf("ptysend did not run: %v (stderr %q)", err, stderr.String())
	}
	return result{stdout.String(), stderr.String(), code}
}

// ptysend prepares a ptysend process; a hung one is killed by the guard.
func (b *bridge) ptysend(stdin io.Reader, args ...string) *exec.Cmd {
	return b.ptysendOf(filepath.Join(bin, "ptysend"), stdin, args...)
}

// ptysendOf is ptysend, of the binary exe.
func (b *bridge) ptysendOf(exe string, stdin io.Reader, args ...string) *exec.Cmd {
	ctx, cancel := context.WithTimeout(context.Background(), 3*hangGuard)
	b.t.Cleanup(cancel)
	cmd := b.user.Runs(exec.CommandContext(ctx, exe, args...))
	cmd.Env = b.env
	cmd.Stdin = stdin
	cmd.Cancel = func() error {
		b.t.Errorf("ptysend %q hung and was killed", args)
		return cmd.Process.Signal(syscall.SIGKILL)
	}
	return cmd
}

// run is send for commands that must succeed; it returns their stdout.
func (b *bridge) run(args ...string) string {
	b.t.Helper()
	r := b.send(args...)
	if r.code != 0 {
		b.t.Fatalf("ptysend %q failed:\n%v", args, r)
	}
	return r.stdout
}

// paneText is what the shared pane shows now, scrollback included.
func (b *bridge) paneText() string {
	return b.mustTmux("capture-pane", "-p", "-J", "-S", "-", "-t", "="+b.name+":")
}

func expectCode(t *testing.T, r result, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit %d, got:\n%v", code, r)
	}
}

// lockedBuffer is a buffer a process writes while the test reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// waitForCopyMode waits until the human's copy mode in the shared pane is
// on (or off) as the bridge records it: tmux's pane-mode-changed hook
// writes the pane's mode file beside the relay socket a moment after
// tmux's own flag changes.
func (b *bridge) waitForCopyMode(on bool) {
	b.t.Helper()
	b.waitForPaneMode(strings.TrimSpace(b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{@ptybridge_pane}")), on)
}

// waitForPaneMode is waitForCopyMode for any pane of the session (a job's
// window).
func (b *bridge) waitForPaneMode(pane string, on bool) {
	b.t.Helper()
	want := map[bool]string{true: "1", false: "0"}[on]
	modeFile := filepath.Join(b.runtimeDir(), b.name+".mode."+pane)
	b.waitFor("copy mode "+want+" to be recorded", func() bool {
		m, _ := os.ReadFile(modeFile)
		return strings.TrimSpace(string(m)) == want
	})
}

// running is a ptysend call under way, whose output the test watches.
type running struct {
	cmd            *exec.Cmd
	stdout, stderr *lockedBuffer
	closeStdin     func()
	deferred       bool // not started yet (startWithStdin)
}

// start runs ptysend with args without waiting for it. With fromTerminal,
// its stdin is a terminal of its own (as in an agent's interactive
// session); otherwise it is /dev/null. Either way the command reads the
// shared terminal, where the human answers.
func (b *bridge) start(fromTerminal bool, args ...string) *running {
	b.t.Helper()
	r := &running{stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, closeStdin: func() {}}
	r.cmd = b.ptysend(nil, args...)
	if fromTerminal {
		ptmx, tty, err := pty.Open()
		must(b.t, err)
		if b.user != nil {
			must(b.t, b.user.Own(tty.Name()))
		}
		r.cmd.Stdin = tty
		r.closeStdin = func() { tty.Close(); ptmx.Close() }
	}
	r.cmd.Stdout, r.cmd.Stderr = r.stdout, r.stderr
	must(b.t, r.cmd.Start())
	b.t.Cleanup(func() { r.closeStdin() })
	return r
}

// wait waits for the call to end and returns what it returned.
func (r *running) wait(t *testing.T) result {
	t.Helper()
	r.cmd.Wait()
	r.closeStdin()
	return result{r.stdout.String(), r.stderr.String(), r.cmd.ProcessState.ExitCode()}
}

// waitForScreen waits until the human's terminal shows text: what tmux
// drew there, without its escape sequences.
func (b *bridge) waitForScreen(term *terminal, text string) {
	b.t.Helper()
	b.waitFor(fmt.Sprintf("the human's screen to show %q", text), func() bool {
		return strings.Contains(screenText(term.screen()), text)
	})
}

// screenText is what a terminal drew, with the escape sequences (CSI,
// OSC and the two-byte ones) left out.
func screenText(drawn string) string {
	var b strings.Builder
	for i := 0; i < len(drawn); i++ {
		c := drawn[i]
		if c != 0x1b || i+1 >= len(drawn) {
			b.WriteByte(c)
			continue
		}
		i++
		switch drawn[i] {
		case '[': // CSI: parameters up to a final byte
			for i+1 < len(drawn) && (drawn[i+1] < 0x40 || drawn[i+1] > 0x7e) {
				i++
			}
			i++
		case ']', 'P', '_': // strings up to BEL or ST
			for i+1 < len(drawn) && drawn[i+1] != 0x07 && !(drawn[i+1] == 0x1b && i+2 < len(drawn) && drawn[i+2] == '\\') {
				i++
			}
			if i+1 < len(drawn) && drawn[i+1] == 0x1b {
				i++
			}
			i++
		case '(', ')': // charset: one more byte
			i++
		}
	}
	return b.String()
}

// paneLines are the lines the shared pane shows, scrollback included.
func (b *bridge) paneLines() []string { return strings.Split(b.paneText(), "\n") }
