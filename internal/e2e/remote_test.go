package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/ptybridge/ptybridge/internal/bridgetest"
)

// Remote bridges (ptybridge --host): the host is this machine's sshd on localhost, where the
// second test user logs in with its own keys, and whose sessions get a private home, tmux
// directory and runtime directory (sshd's SetEnv), so the host's tmux server is the test's.

// remoteHost is the host of a test's remote bridges.
type remoteHost struct {
	t    *testing.T
	dir  string // the host user's private files: home, tmux, rt
	user *bridgetest.User
	srv  *sshServer
	dest string
}

const remoteSession = "far"

func startRemoteHost(t *testing.T) *remoteHost {
	t.Helper()
	needOtherUser(t)
	u, err := bridgetest.LookupUser(otherUser)
	must(t, err)
	dir, err := os.MkdirTemp("/tmp", "ptbh")
	must(t, err)
	for _, sub := range []string{"home", "tmux"} {
		must(t, os.Mkdir(filepath.Join(dir, sub), 0o700))
	}
	must(t, u.Own(dir))
	h := &remoteHost{t: t, dir: dir, user: u, dest: otherUser + "@127.0.0.1"}
	t.Cleanup(func() {
		h.tmux("kill-server")
		killLingerScripts(otherUser, h.dir)
		os.RemoveAll(dir)
	})
	// PATH: where a test installs a ptybridge of the host's own (the home's bin).
	h.srv = startSSHD(t, fmt.Sprintf("SetEnv HOME=%s TMUX_TMPDIR=%s PTYBRIDGE_RUNTIME_DIR=%s PATH=%s:/usr/local/bin:/usr/bin:/bin\n",
		filepath.Join(dir, "home"), filepath.Join(dir, "tmux"), filepath.Join(dir, "rt"), filepath.Join(dir, "home", "bin")))
	return h
}

// killLingerScripts ends a test's --linger timers (a shell of tmux's run-shell -b and its sleep),
// which outlive the tmux server: user's, found by the test's directory dir.
func killLingerScripts(user, dir string) {
	out, _ := exec.Command("ps", "-u", user, "-o", "pid=,ppid=,args=").Output()
	mine := map[string]bool{}
	lines := strings.Split(string(out), "\n")
	for _, line := range lines {
		if f := strings.Fields(line); len(f) > 2 && strings.Contains(line, dir+"/") {
			mine[f[0]] = true
		}
	}
	for _, line := range lines {
		if f := strings.Fields(line); len(f) > 2 && (mine[f[0]] || mine[f[1]]) {
			var pid int
			fmt.Sscan(f[0], &pid)
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// sshCommand is the human's ssh for PTYBRIDGE_SSH: the test's key and port.
func (h *remoteHost) sshCommand() string { return h.sshCommandTo(h.srv.port) }

func (h *remoteHost) sshCommandTo(port int) string {
	return fmt.Sprintf("ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -i %s -p %d", h.srv.key, port)
}

// world is a local world whose human reaches the host with their ssh. Its ssh masters, which
// outlive the human's terminals (ControlPersist), end with the test: sshd ends only then.
func (h *remoteHost) world(opts ...option) *bridge {
	b := newWorld(h.t, append([]option{withEnv("PTYBRIDGE_SSH", h.sshCommand())}, opts...)...)
	h.t.Cleanup(func() {
		socks, _ := filepath.Glob(filepath.Join(b.runtimeDir(), "ssh-*"))
		for _, sock := range socks {
			exec.Command("ssh", append(strings.Fields(h.sshCommand())[1:], "-S", sock, "-O", "exit", h.dest)...).Run()
		}
	})
	return b
}

// tmux runs tmux as the host user against the host's tmux server.
func (h *remoteHost) tmux(args ...string) (string, error) {
	cmd := h.user.Runs(exec.Command("tmux", args...))
	cmd.Env = []string{"TMUX_TMPDIR=" + filepath.Join(h.dir, "tmux"), "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// open has the human run ptybridge --host in a new terminal of b's, and waits until the host's
// session has it attached.
func (h *remoteHost) open(b *bridge, args ...string) *terminal {
	h.t.Helper()
	term := b.openTerminal(append([]string{"--host", h.dest, "--session", remoteSession}, args...)...)
	h.waitAttached(b, term, true)
	return term
}

// waitAttached waits until the host's session has a terminal attached (or none).
func (h *remoteHost) waitAttached(b *bridge, term *terminal, attached bool) {
	h.t.Helper()
	b.waitFor(fmt.Sprintf("the host's session to be attached: %v (the terminal shows %q)", attached, term.screen()), func() bool {
		out, err := h.tmux("display-message", "-p", "-t", "="+remoteSession+":", "#{session_name} #{session_attached}")
		name, n, _ := strings.Cut(strings.TrimSpace(out), " ")
		if attached {
			return err == nil && name == remoteSession && n != "0"
		}
		return err == nil && name == remoteSession && n == "0"
	})
}

// cache is the host's cache directory of this build (the only one).
func (h *remoteHost) cache() string {
	h.t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(h.dir, "home", ".cache", "ptybridge", "*"))
	if len(dirs) != 1 {
		h.t.Fatalf("want one cache directory on the host, got %q", dirs)
	}
	return dirs[0]
}

func sha256File(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	must(t, err)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// masterPID is the pid of the ssh master of the world's remote bridge.
func masterPID(t *testing.T, b *bridge, h *remoteHost) int {
	t.Helper()
	socks, _ := filepath.Glob(filepath.Join(b.runtimeDir(), "ssh-*"))
	if len(socks) != 1 {
		t.Fatalf("want one control socket, got %q", socks)
	}
	args := append(strings.Fields(h.sshCommand())[1:], "-S", socks[0], "-O", "check", h.dest)
	out, _ := exec.Command("ssh", args...).CombinedOutput()
	m := regexp.MustCompile(`pid=(\d+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("ssh -O check: %s", out)
	}
	var pid int
	fmt.Sscan(string(m[1]), &pid)
	return pid
}

func TestRemoteBridge(t *testing.T) {
	h := startRemoteHost(t)
	b := h.world()
	term := h.open(b)

	t.Run("first use copies the binaries, verified, to a private cache", func(t *testing.T) {
		b.waitForScreen(term, "copying ptysend to "+h.dest)
		cache := h.cache()
		for _, name := range []string{"", "ptybridge", "ptysend", "ptysend-mcp"} {
			fi, err := os.Stat(filepath.Join(cache, name))
			must(t, err)
			if fi.Mode().Perm() != 0o700 || fi.Sys().(*syscall.Stat_t).Uid == 0 {
				t.Fatalf("%s has mode %v and uid %d", filepath.Join(cache, name), fi.Mode(), fi.Sys().(*syscall.Stat_t).Uid)
			}
			if name != "" && sha256File(t, filepath.Join(cache, name)) != sha256File(t, filepath.Join(bin, name)) {
				t.Fatalf("the host's %s differs from the local one", name)
			}
		}
	})
	t.Run("a command runs on the host: stdout, stderr, exit status", func(t *testing.T) {
		r := b.send(at("--", "echo out; echo err >&2; whoami; sh -c 'exit 3'")...)
		if r.stdout != "out\n"+otherUser+"\n" || r.stderr != "err\n" || r.code != 3 {
			t.Fatalf("want out and %s, err, exit 3; got:\n%v", otherUser, r)
		}
	})
	t.Run("words reach the host's shell as typed", func(t *testing.T) {
		r := b.send(at("--", `printf '%s|' 'a  b' "it's" '\t!' "$((6*7))"`)...)
		if r.code != 0 || r.stdout != `a  b|it's|\t!|42|` {
			t.Fatalf("got:\n%v", r)
		}
	})
	t.Run("stdin is forwarded", func(t *testing.T) {
		r := b.sendWith(strings.NewReader("one\ntwo\n"), at("--", "cat; echo end")...)
		if r.code != 0 || r.stdout != "one\ntwo\nend\n" {
			t.Fatalf("got:\n%v", r)
		}
	})
	t.Run("--sessions lists it as remote, with user@host", func(t *testing.T) {
		out := b.run("--sessions")
		if !regexp.MustCompile(`(?m)^far\t` + otherUser + `@\S+\tbash \(remote\)\tfree\t1 terminal$`).MatchString(out) {
			t.Fatalf("--sessions:\n%s", out)
		}
	})
	b.run(at("--", "cd /usr/share && export PTB_KEPT=kept")...)
	term.close()
	h.waitAttached(b, term, false)
	// The host's tmux writes when the session lingers until from a hook's background shell.
	b.waitFor("the host's session to linger", func() bool { return strings.Contains(b.send(at("--status")...).stdout, "lingering") })
	t.Run("with no terminal attached the host's ptysend refuses: nobody watches", func(t *testing.T) {
		if r := b.send(at("--", "echo typed")...); r.code != 75 || !strings.Contains(r.stderr, "nobody would see it") {
			t.Fatalf("want 75, got:\n%v", r)
		}
	})
	t.Run("a second use copies nothing and finds the session as it was", func(t *testing.T) {
		again := h.open(b)
		if got := b.run(at("--", `pwd; echo "$PTB_KEPT"`)...); got != "/usr/share\nkept\n" {
			t.Fatalf("got %q", got)
		}
		if strings.Contains(again.screen(), "copying") {
			t.Fatalf("the second use copied:\n%s", screenText(again.screen()))
		}
		again.close()
		h.waitAttached(b, again, false)
	})
	t.Run("a binary whose checksum differs is replaced, not run", func(t *testing.T) {
		// In place of the binary, as a running one cannot be written (a job's supervisor runs it).
		planted := filepath.Join(h.cache(), "planted")
		must(t, os.WriteFile(planted, []byte("#!/bin/sh\necho planted\n"), 0o700))
		must(t, h.user.Own(planted))
		must(t, os.Rename(planted, filepath.Join(h.cache(), "ptysend")))
		again := h.open(b)
		b.waitForScreen(again, "replacing (its checksum differs) ptysend")
		if sha256File(t, filepath.Join(h.cache(), "ptysend")) != sha256File(t, filepath.Join(bin, "ptysend")) {
			t.Fatal("the host's ptysend was not replaced")
		}
		if got := b.run(at("--", "echo fine")...); got != "fine\n" {
			t.Fatalf("got %q", got)
		}
	})
	t.Run("a REPL runs on the host", func(t *testing.T) {
		b.run(at("--repl-start", "python3")...)
		if got := b.run(at("--repl-eval", "import getpass; print(getpass.getuser(), 6*7)")...); got != otherUser+" 42\n" {
			t.Fatalf("--repl-eval: %q", got)
		}
		b.run(at("--repl-close")...)
	})
	t.Run("a job runs on the host", func(t *testing.T) {
		b.run(at("--job", "who", "--", "whoami; sleep 30")...)
		if got := b.run(at("--job-wait", "who", "--until", otherUser)...); !strings.Contains(got, otherUser) {
			t.Fatalf("--job-wait: %q", got)
		}
		if out := b.run(at("--jobs")...); !strings.Contains(out, "who") {
			t.Fatalf("--jobs: %q", out)
		}
		b.send(at("--job-stop", "who")...)
	})
}
