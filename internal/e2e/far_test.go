package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridgetest"
)

// Far mode: the shell at the other end of the shared terminal is not
// ours to read in /proc (another user's through su, another host's
// through ssh, another namespace's through unshare); ptysend drives it
// through the terminal stream. The tests play the human who opens it.

// otherUser is the second local user that scripts/test-deps-far creates.
const otherUser = "ptb-other"

// needOtherUser fails the test when the machine lacks the test user.
func needOtherUser(t *testing.T) {
	t.Helper()
	if err := exec.Command("id", "-u", otherUser).Run(); err != nil {
		t.Fatalf("the test user %s does not exist: run scripts/test-deps-far as root (.ci/run does)", otherUser)
	}
	if currentUser() != "root" {
		t.Skipf("su to %s without a password needs root", otherUser)
	}
}

// cursorLine is the pane's line under the cursor.
func (b *bridge) cursorLine() string { return b.cursorLineOf(b.name) }

// cursorLineOf is the line under the cursor of session's pane.
func (b *bridge) cursorLineOf(session string) string {
	out, err := b.tmux("display-message", "-p", "-t", "="+session+":", "#{cursor_y}")
	if err != nil {
		return ""
	}
	out = strings.TrimSpace(out)
	var y int
	for _, c := range out {
		y = y*10 + int(c-'0')
	}
	screen, err := b.tmux("capture-pane", "-p", "-t", "="+session+":")
	if err != nil {
		return ""
	}
	rows := strings.Split(screen, "\n")
	if y < len(rows) {
		return rows[y]
	}
	return ""
}

// waitPrompt waits until the cursor line matches re (a prompt).
func (b *bridge) waitPrompt(re string) {
	b.t.Helper()
	pat := regexp.MustCompile(re)
	b.waitFor("a cursor line matching "+re, func() bool { return pat.MatchString(b.cursorLine()) })
}

// suOther has the human switch to the other user in the terminal.
func suOther(t *testing.T, b *bridge, term *terminal, shell string) {
	t.Helper()
	args := ""
	if shell != "" {
		args = " -s " + shell
	}
	term.typeKeys("su" + args + " " + otherUser + "\r")
	b.waitForegroundUser(otherUser)
	b.waitPrompt(`[$#%>] ?$`)
}

// waitForeground waits until the pane's foreground process is program.
func (b *bridge) waitForeground(program string) {
	b.t.Helper()
	b.waitFor(program+" in the foreground", func() bool {
		pid := b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_pid}")
		out, err := exec.Command("ps", "-o", "tpgid=", "-p", pid).Output()
		if err != nil {
			return false
		}
		comm, err := exec.Command("ps", "-o", "comm=", "-p", strings.TrimSpace(string(out))).Output()
		return err == nil && strings.TrimSpace(string(comm)) == program
	})
}

// waitForegroundUser waits until the pane's foreground process runs as
// user (the far shell of su has taken the terminal).
func (b *bridge) waitForegroundUser(user string) {
	b.t.Helper()
	b.waitFor("a process of "+user+" in the foreground", func() bool {
		pid := b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_pid}")
		out, err := exec.Command("ps", "-o", "tpgid=", "-p", pid).Output()
		if err != nil {
			return false
		}
		owner, err := exec.Command("ps", "-o", "user=", "-p", strings.TrimSpace(string(out))).Output()
		return err == nil && strings.TrimSpace(string(owner)) == user
	})
}

func TestFarSuBash(t *testing.T) {
	needOtherUser(t)
	// The private directory of a far shell that is gone (pid 2^22+1 is
	// above Linux's pid_max default, never alive).
	stale := "/tmp/ptybridge-4194305.zzzzzz"
	if err := os.MkdirAll(stale, 0o700); err != nil {
		t.Fatal(err)
	}
	exec.Command("chown", otherUser+":", stale).Run()
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(stale, old, old)
	t.Cleanup(func() { os.RemoveAll(stale) })
	b := newWorld(t)
	term := b.openTerminal()
	b.waitReady()
	suOther(t, b, term, "/bin/bash")
	t.Run("whoami runs as the other user", func(t *testing.T) {
		r := b.send("--", "whoami")
		if r.code != 0 || r.stdout != otherUser+"\n" {
			t.Fatalf("want %s, got:\n%v\npane:\n%s", otherUser, r, b.paneText())
		}
	})
	t.Run("the far shell's private directory is its own, and a gone shell's is removed", func(t *testing.T) {
		dir := b.run("--", `printf '%s' "$__ptybridge_d"; stat -c ' %a %U' "$__ptybridge_d"`)
		if !regexp.MustCompile(`^/tmp/ptybridge-\d+\.\w+ 700 ` + otherUser + `\n$`).MatchString(dir) {
			t.Fatalf("the private directory: %q", dir)
		}
		if _, err := os.Stat(stale); err == nil {
			t.Fatalf("%s is still there", stale)
		}
	})
	t.Run("state is kept between calls", func(t *testing.T) {
		b.run("--", "cd /usr/share && export PTB_VAR=kept")
		if got := b.run("--", `pwd; sh -c 'echo "$PTB_VAR"'`); got != "/usr/share\nkept\n" {
			t.Fatalf("got %q\npane:\n%s", got, b.paneText())
		}
	})
	t.Run("exit status", func(t *testing.T) {
		if r := b.send("--", "sh -c 'exit 3'"); r.code != 3 {
			t.Fatalf("want exit 3:\n%v", r)
		}
	})
	t.Run("the far shell's history holds neither the probe, the loaders nor the commands", func(t *testing.T) {
		got := b.run("--", "history")
		for _, s := range []string{"__ptybridge", "6973;", "PTB_VAR", "exit 3"} {
			if strings.Contains(got, s) {
				t.Fatalf("the history holds %q:\n%s", s, got)
			}
		}
	})
	farContract(t, b)
}

// farContract checks the contract of ptysend in a far shell of a
// POSIX kind whose user is otherUser.
func farContract(t *testing.T, b *bridge) {
	t.Run("stdout, stderr and status apart", func(t *testing.T) {
		r := b.send("--", "echo out; echo err >&2; echo out2; sh -c 'exit 3'")
		if r.stdout != "out\nout2\n" || r.stderr != "err\n" || r.code != 3 {
			t.Fatalf("want stdout \"out\\nout2\\n\", stderr \"err\\n\", exit 3; got:\n%v\npane:\n%s", r, b.paneText())
		}
	})
	t.Run("a large stderr arrives whole and apart", func(t *testing.T) {
		var want strings.Builder
		for i := 1; i <= 20000; i++ {
			fmt.Fprintf(&want, "%d\n", i)
		}
		r := b.send("--", "seq 1 20000 >&2; echo done")
		if r.code != 0 || r.stdout != "done\n" || r.stderr != want.String() {
			t.Fatalf("want exit 0, stdout done, %d bytes of stderr; got exit %d, stdout %q, %d bytes of stderr",
				want.Len(), r.code, r.stdout, len(r.stderr))
		}
	})
	t.Run("stdin is forwarded", func(t *testing.T) {
		r := b.sendWith(strings.NewReader("line one\nline\ttwo\n"), "--", "cat; echo end")
		if r.code != 0 || r.stdout != "line one\nline\ttwo\nend\n" {
			t.Fatalf("got:\n%v", r)
		}
	})
	t.Run("a long command arrives whole", func(t *testing.T) {
		long := strings.Repeat("abcdefghij", 900)
		if r := b.send("--", "echo "+long); r.code != 0 || r.stdout != long+"\n" {
			t.Fatalf("got exit %d and %d bytes of stdout", r.code, len(r.stdout))
		}
	})
	t.Run("the no-output timeout's Ctrl-C leaves the shell usable", func(t *testing.T) {
		r := b.send("--timeout", "1", "--", "echo started; sleep 300")
		if r.code != 124 || r.stdout != "started\n" || !strings.Contains(r.stderr, "Ctrl-C") {
			t.Fatalf("want exit 124 after Ctrl-C with the output so far:\n%v", r)
		}
		if got := b.run("--", "whoami"); got != otherUser+"\n" {
			t.Fatalf("after the timeout: %q", got)
		}
	})
	t.Run("the human sees the agent's commands, not the loader", func(t *testing.T) {
		b.run("--", "echo shown-to-the-human")
		pane := b.paneText()
		if !strings.Contains(pane, "[agent] $ echo shown-to-the-human") || strings.Contains(pane, " __ptybridge_l ") ||
			strings.Contains(pane, "__ptybridge_d=$(") ||
			strings.Contains(pane, "6973;") {
			t.Fatalf("the pane shows:\n%s", pane)
		}
	})
}

// sshServer is an OpenSSH server the test starts on a free port of
// localhost (bridgetest.StartSSHD), stopped when the test ends.
type sshServer struct {
	port int
	key  string // the client's private key
	srv  *bridgetest.SSHServer
}

// startSSHD starts sshd for the test; it is killed when the test ends.
func startSSHD(t *testing.T, extraConfig ...string) *sshServer {
	t.Helper()
	srv, err := bridgetest.StartSSHD(strings.Join(extraConfig, ""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("sshd said:\n%s", srv.Logs())
		}
		srv.Close()
	})
	return &sshServer{port: srv.Port, key: srv.Key, srv: srv}
}

// command is the ssh command line that logs in as user.
func (s *sshServer) command(user string) string { return s.srv.Command(user) }

func TestFarSSHBash(t *testing.T) {
	needOtherUser(t)
	srv := startSSHD(t)
	b := newWorld(t)
	term := b.openTerminal()
	b.waitReady()
	term.typeKeys(srv.command(otherUser) + "\r")
	b.waitForeground("ssh")
	b.waitPrompt(otherUser + `@.*[$#] ?$`)
	t.Run("whoami runs at the far end", func(t *testing.T) {
		r := b.send("--", "whoami")
		if r.code != 0 || r.stdout != otherUser+"\n" || !strings.Contains(r.stderr, "far end of ssh") {
			t.Fatalf("want %s and a note on stderr, got:\n%v\npane:\n%s", otherUser, r, b.paneText())
		}
	})
	t.Run("state is kept between calls", func(t *testing.T) {
		b.run("--", "cd /usr/share && export PTB_VAR=kept")
		if got := b.run("--", `pwd; sh -c 'echo "$PTB_VAR"'`); got != "/usr/share\nkept\n" {
			t.Fatalf("got %q\npane:\n%s", got, b.paneText())
		}
	})
	farContract(t, b)
	t.Run("--status names where the commands run", func(t *testing.T) {
		r := b.send("--status")
		if r.code != 0 || !strings.Contains(r.stdout, "far: commands run at the far end of ssh: "+otherUser+"@") ||
			!strings.Contains(r.stdout, "free: yes") {
			t.Fatalf("--status said:\n%v", r)
		}
		var st struct {
			Far struct{ Via, Kind, User string }
		}
		if err := json.Unmarshal([]byte(b.run("--status", "--json")), &st); err != nil || st.Far.Via != "ssh" || st.Far.User != otherUser || st.Far.Kind != "bash" {
			t.Fatalf("--status --json: %v, %+v", err, st)
		}
	})
	t.Run("a command that ends the far shell", func(t *testing.T) {
		r := b.send("--", "exit")
		if r.code != 125 || !strings.Contains(r.stderr, "ended the far shell") {
			t.Fatalf("want exit 125 saying the far shell ended:\n%v", r)
		}
		if got := b.run("--", "whoami"); got != currentUser()+"\n" {
			t.Fatalf("back in the local shell, whoami said %q", got)
		}
	})
}

// otherHome prepares the other user's startup files so that no shell
// starts with a first-run wizard (zsh-newuser-install) or a background
// job (fish's completions from man pages).
func otherHome(t *testing.T) {
	t.Helper()
	home := "/home/" + otherUser
	for _, p := range []string{".zshrc"} {
		path := filepath.Join(home, p)
		if _, err := os.Stat(path); err != nil {
			os.WriteFile(path, []byte("# written by ptybridge's tests\n"), 0o644)
			exec.Command("chown", otherUser+":", path).Run()
		}
	}
	dir := filepath.Join(home, ".local/share/fish/generated_completions")
	if _, err := os.Stat(dir); err != nil {
		os.MkdirAll(dir, 0o755)
		exec.Command("chown", "-R", otherUser+":", filepath.Join(home, ".local")).Run()
	}
}

func TestFarEveryShellKind(t *testing.T) {
	needOtherUser(t)
	otherHome(t)
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			b := newWorld(t)
			term := b.openTerminal()
			b.waitReady()
			suOther(t, b, term, sh.path(t))
			if r := b.send("--", "whoami"); r.code != 0 || r.stdout != otherUser+"\n" {
				t.Fatalf("want %s, got:\n%v\npane:\n%s", otherUser, r, b.paneText())
			}
			b.run("--", sh.setVars)
			if got := b.run("--", `pwd; sh -c 'echo "$PTB_VAR"'`); got != "/usr/share\nkept\n" {
				t.Fatalf("got %q\npane:\n%s", got, b.paneText())
			}
			farContract(t, b)
		})
	}
}

func TestFarRefusesWhatItCannotDrive(t *testing.T) {
	needOtherUser(t)
	const fakeCLI = `sh -c 'while printf "switch01# "; read l; do echo "% Invalid input detected"; done'`
	for _, c := range []struct {
		name, force, want string
	}{
		{"tcsh at the far end", "tcsh", "did not answer as a shell"},
		{"a router's CLI at the far end", fakeCLI, "did not answer as a shell"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := startSSHD(t, "PasswordAuthentication no\nForceCommand "+c.force+"\n")
			b := newWorld(t)
			term := b.openTerminal()
			b.waitReady()
			term.typeKeys(srv.command(otherUser) + "\r")
			b.waitForeground("ssh")
			b.waitPrompt(`^(switch01# ?|[^@]*> ?)$`)
			r := b.send("--", "whoami")
			if r.code != 125 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
				t.Fatalf("want a refusal saying %q, got:\n%v\npane:\n%s", c.want, r, b.paneText())
			}
		})
	}
	t.Run("ssh's own password prompt", func(t *testing.T) {
		t.Parallel()
		srv := startSSHD(t, "PasswordAuthentication yes\n")
		b := newWorld(t)
		term := b.openTerminal()
		b.waitReady()
		term.typeKeys(strings.Replace(srv.command(otherUser), "-i "+srv.key, "-o PubkeyAuthentication=no -o PreferredAuthentications=password", 1) + "\r")
		b.waitPrompt(`password: ?$`)
		r := b.send("--", "whoami")
		if r.code != 75 || !strings.Contains(r.stderr, "asks for something") {
			t.Fatalf("want a refusal, got:\n%v\npane:\n%s", r, b.paneText())
		}
		if strings.Contains(b.paneText(), "printf") {
			t.Fatalf("something was typed into the password prompt:\n%s", b.paneText())
		}
	})
	t.Run("tcsh as the other user's shell is refused by name", func(t *testing.T) {
		t.Parallel()
		b := newWorld(t)
		term := b.openTerminal()
		b.waitReady()
		term.typeKeys("su -s /usr/bin/tcsh " + otherUser + "\r")
		b.waitForegroundUser(otherUser)
		r := b.send("--", "whoami")
		if r.code != 125 || !strings.Contains(r.stderr, "cannot drive") {
			t.Fatalf("want a refusal naming tcsh, got:\n%v", r)
		}
	})
}

func TestFarBridgeOpenedOnACommandBesideTheDefaultOne(t *testing.T) {
	needOtherUser(t)
	srv := startSSHD(t)
	b := newWorld(t)
	b.openTerminal()
	b.waitReady()
	web := b.openTerminal(append([]string{"--session", "web1", "--"}, strings.Fields(srv.command(otherUser))...)...)
	prompt := regexp.MustCompile(otherUser + `@.*[$#] ?$`)
	b.waitFor("the far prompt in the bridge web1", func() bool { return prompt.MatchString(b.cursorLineOf("web1")) })

	if got := b.run("--session", "web1", "--", "whoami"); got != otherUser+"\n" {
		t.Fatalf("web1: whoami said %q", got)
	}
	if got := b.run("--", "whoami"); got != currentUser()+"\n" {
		t.Fatalf("the default bridge: whoami said %q", got)
	}
	b.run("--session", "web1", "--", "cd /usr/share")
	b.run("--", "cd /usr/lib")
	if got := b.run("--session", "web1", "--", "pwd"); got != "/usr/share\n" {
		t.Fatalf("web1: pwd said %q", got)
	}
	if got := b.run("--", "pwd"); got != "/usr/lib\n" {
		t.Fatalf("the default bridge: pwd said %q", got)
	}

	list := b.run("--sessions")
	var webLine, defLine string
	for _, l := range strings.Split(list, "\n") {
		switch {
		case strings.HasPrefix(l, "web1\t"):
			webLine = l
		case strings.HasPrefix(l, b.name+"\t"):
			defLine = l
		}
	}
	if !strings.Contains(webLine, "\t"+otherUser+"@") || !strings.Contains(webLine, "bash via ssh") || !strings.Contains(webLine, "free") ||
		!strings.Contains(defLine, "\t"+currentUser()+"@") || !strings.Contains(defLine, "(local)") {
		t.Fatalf("--sessions said:\n%s", list)
	}
	var objects []map[string]any
	if err := json.Unmarshal([]byte(b.run("--sessions", "--json")), &objects); err != nil || len(objects) != 2 {
		t.Fatalf("--sessions --json: %v, %v", err, objects)
	}

	// The far shell's exit ends ssh, the bridge's command: the bridge
	// closes, and its terminal says how the command ended.
	r := b.send("--session", "web1", "--", "exit 3")
	if r.code != 125 || !strings.Contains(r.stderr, "is closed") {
		t.Fatalf("want the bridge closed:\n%v", r)
	}
	web.exited(t)
	if !strings.Contains(web.screen(), "ended with exit status 3") {
		rec, err := os.ReadFile(filepath.Join(b.runtimeDir(), "web1.exit"))
		t.Fatalf("the terminal of web1 showed:\n%q\n(the exit record: %q, %v) %s", web.screen(), rec, err, r.stderr)
	}
	if got := b.run("--", "pwd"); got != "/usr/lib\n" {
		t.Fatalf("the default bridge after web1 closed: pwd said %q", got)
	}
}

func TestFarSudoWithThePasswordTypedByTheHuman(t *testing.T) {
	needOtherUser(t)
	b := newWorld(t)
	term := b.openTerminal()
	b.waitReady()
	suOther(t, b, term, "/bin/bash")
	term.typeKeys("sudo -k; sudo -i\r")
	b.waitPrompt(`password for ` + otherUser + `: ?$`)
	if r := b.send("--", "whoami"); r.code != 75 || !strings.Contains(r.stderr, "asks for something") {
		t.Fatalf("want a refusal while sudo asks for the password:\n%v", r)
	}
	term.typeKeys("ptb-other-pw\r")
	b.waitPrompt(`root@.*# ?$`)
	if r := b.send("--", "whoami; echo $HOME"); r.code != 0 || r.stdout != "root\n/root\n" {
		t.Fatalf("want root's login shell, got:\n%v\npane:\n%s", r, b.paneText())
	}
	if r := b.send("--", "echo err >&2; false"); r.code != 1 || r.stderr != "err\n" {
		t.Fatalf("got:\n%v", r)
	}
	// The human runs something in the root shell: /proc shows it under
	// sudo's pty, and the pane is busy with it.
	term.typeKeys("sleep 31.25\r")
	b.waitFor("sleep in the root shell", func() bool {
		out, _ := exec.Command("pgrep", "-u", "root", "-f", "^sleep 31.25$").Output()
		return len(out) > 0
	})
	if r := b.send("--", "true"); r.code != 75 || !strings.Contains(r.stderr, "busy") {
		t.Fatalf("want busy while the human's sleep runs:\n%v", r)
	}
	term.typeKeys("\x03")
	b.waitPrompt(`root@.*# ?$`)
	if got := b.run("--", "echo back"); got != "back\n" {
		t.Fatalf("after the human's Ctrl-C: %q", got)
	}
}

func TestFarShellInAnotherNamespace(t *testing.T) {
	if currentUser() != "root" {
		t.Skip("unshare of the mount and pid namespaces needs root")
	}
	b := newWorld(t)
	term := b.openTerminal()
	b.waitReady()
	term.typeKeys("unshare --mount --pid --fork --mount-proc /bin/bash --norc --noprofile\r")
	b.waitFor("bash in a new pid namespace", func() bool {
		pid := b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_pid}")
		fg, err := exec.Command("ps", "-o", "tpgid=", "-p", pid).Output()
		if err != nil {
			return false
		}
		mine, _ := os.Readlink("/proc/self/ns/pid")
		theirs, _ := os.Readlink("/proc/" + strings.TrimSpace(string(fg)) + "/ns/pid")
		return theirs != "" && theirs != mine
	})
	b.waitPrompt(`[$#] ?$`)
	r := b.send("--", "echo $$; ps -e -o pid= | wc -l")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "1\n") {
		t.Fatalf("want pid 1 in the new namespace, got:\n%v\npane:\n%s", r, b.paneText())
	}
	b.run("--", "cd /usr/share")
	if got := b.run("--", "pwd"); got != "/usr/share\n" {
		t.Fatalf("got %q", got)
	}
	// Its private directory is named after pid 1, which is alive in every
	// namespace: no later first call removes it.
	if dir := b.run("--", `printf '%s' "$__ptybridge_d"`); strings.HasPrefix(dir, "/tmp/ptybridge-1.") {
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
}

func TestFarShellStartedInsideTheFarShell(t *testing.T) {
	needOtherUser(t)
	srv := startSSHD(t)
	b := newWorld(t)
	term := b.openTerminal()
	b.waitReady()
	term.typeKeys(srv.command(otherUser) + "\r")
	b.waitForeground("ssh")
	b.waitPrompt(otherUser + `@.*[$#] ?$`)
	b.run("--", "export PTB_OUTER=outer")
	// The human starts another shell there; the first one's hooks say it
	// runs a command, the screen shows the new one's prompt.
	term.typeKeys("PS1='inner$ ' bash --norc\r")
	b.waitPrompt(`^inner\$ ?$`)
	if got := b.run("--", "echo ${PTB_OUTER-none} $SHLVL"); !strings.HasPrefix(got, "outer ") {
		t.Fatalf("in the inner shell: %q\npane:\n%s", got, b.paneText())
	}
	b.run("--", "PTB_INNER=inner")
	term.typeKeys("exit\r")
	b.waitPrompt(otherUser + `@.*[$#] ?$`)
	if got := b.run("--", "echo ${PTB_INNER-none}"); got != "none\n" {
		t.Fatalf("back in the outer shell: %q", got)
	}
	// A program of the human's that shows no prompt stays busy.
	term.typeKeys("cat\r")
	b.waitFor("cat at the far end", func() bool { return strings.TrimSpace(b.cursorLine()) == "" })
	if r := b.send("--", "true"); r.code != 75 || !strings.Contains(r.stderr, "busy") {
		t.Fatalf("want busy while cat runs:\n%v\npane:\n%s", r, b.paneText())
	}
	term.typeKeys("\x03")
}

func TestFarLargeOutputOverSSHArrivesWhole(t *testing.T) {
	needOtherUser(t)
	srv := startSSHD(t)
	b := newWorld(t)
	term := b.openTerminal()
	b.waitReady()
	term.typeKeys(srv.command("root") + "\r")
	b.waitFor("the far shell's prompt", func() bool {
		out, _ := exec.Command("pgrep", "-f", "^sshd: root@pts").Output()
		return len(out) > 0 && regexp.MustCompile(`root@.*[$#] ?$`).MatchString(b.cursorLine())
	})
	b.waitFor("the far shell to answer", func() bool { return b.send("--", "true").code == 0 })
	// The bare reference of the benchmark, in between.
	b.mustTmux("send-keys", "-t", "="+b.name+":", "seq 1 300000; true", "Enter")
	b.waitFor("the bare run to end", func() bool {
		screen, _ := b.tmux("capture-pane", "-p", "-t", "="+b.name+":")
		return strings.Contains(screen, "\n300000\n") && regexp.MustCompile(`root@.*[$#] ?$`).MatchString(b.cursorLine())
	})
	var want strings.Builder
	for i := 1; i <= 300000; i++ {
		want.WriteString(strconv.Itoa(i))
		want.WriteByte('\n')
	}
	for round := range 3 {
		got := b.run("--", "seq 1 300000")
		if got != want.String() {
			i := 0
			for i < len(got) && i < want.Len() && got[i] == want.String()[i] {
				i++
			}
			t.Fatalf("round %d: %d bytes instead of %d; first difference at %d: got %q, want %q", round, len(got), want.Len(), i,
				got[max(0, i-40):min(len(got), i+80)], want.String()[max(0, i-40):min(want.Len(), i+80)])
		}
	}
}

func TestFarBridgeCommandEndedByTheHuman(t *testing.T) {
	needOtherUser(t)
	b := newWorld(t)
	term := b.openTerminal("--session", "box", "--", "su", "-s", "/bin/bash", otherUser)
	prompt := regexp.MustCompile(`[$#] ?$`)
	b.waitFor("the far prompt in the bridge box", func() bool { return prompt.MatchString(b.cursorLineOf("box")) })
	if got := b.run("--session", "box", "--", "whoami"); got != otherUser+"\n" {
		t.Fatalf("whoami said %q", got)
	}
	term.typeKeys("exit 4\r")
	term.exited(t)
	if !strings.Contains(term.screen(), "su -s /bin/bash "+otherUser+" ended with exit status 4") {
		t.Fatalf("the terminal showed:\n%q", term.screen())
	}
	if _, err := b.tmux("has-session", "-t", "=box"); err == nil {
		t.Fatal("the bridge box still runs")
	}
}

func TestFarWaitingForTheHumanAndFullScreenPrograms(t *testing.T) {
	needOtherUser(t)
	srv := startSSHD(t)
	b := newWorld(t)
	term := b.openTerminal()
	b.waitReady()
	term.typeKeys(srv.command(otherUser) + "\r")
	b.waitForeground("ssh")
	b.waitPrompt(otherUser + `@.*[$#] ?$`)
	// Before any call: only the screen can tell that less runs there.
	term.typeKeys("less /etc/passwd\r")
	b.waitFor("the alternate screen", func() bool {
		out, _ := b.tmux("display-message", "-p", "-t", "="+b.name+":", "#{alternate_on}")
		return strings.TrimSpace(out) == "1"
	})
	if r := b.send("--", "true"); r.code != 75 || !strings.Contains(r.stderr, "full-screen") {
		t.Fatalf("want a refusal naming the full-screen program:\n%v", r)
	}
	term.typeKeys("q")
	b.waitPrompt(otherUser + `@.*[$#] ?$`)
	// A question at the far end pauses the no-output timeout.
	cmd := b.ptysend(nil, "--timeout", "1", "--", `read -p 'Your name? ' name </dev/tty; echo "hello $name"`)
	var stdout strings.Builder
	stderr := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b.waitFor("ptysend to say the terminal asks", func() bool { return strings.Contains(stderr.String(), "the terminal asks") })
	term.typeKeys("Ada\r")
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 0 || !strings.HasSuffix(stdout.String(), "hello Ada\n") ||
		!strings.Contains(stderr.String(), `"Your name?"`) {
		t.Fatalf("want exit 0 and the answer, got %d, %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

func TestFarREPL(t *testing.T) {
	needOtherUser(t)
	srv := startSSHD(t)
	b := newWorld(t)
	term := b.openTerminal()
	b.waitReady()
	term.typeKeys(srv.command(otherUser) + "\r")
	b.waitForeground("ssh")
	b.waitPrompt(otherUser + `@.*[$#] ?$`)
	if r := b.send("--repl-start", "python3"); r.code != 0 {
		t.Fatalf("--repl-start python3 over ssh:\n%v\npane:\n%s", r, b.paneText())
	}
	if r := b.send("--", "whoami"); r.code != 125 || !strings.Contains(r.stderr, "REPL") {
		t.Fatalf("a command while the far REPL runs: want a refusal naming the REPL, got:\n%v", r)
	}
	b.run("--repl-eval", "import getpass; x = 21")
	if got := b.run("--repl-eval", "x * 2"); got != "42\n" {
		t.Fatalf("x * 2 said %q\npane:\n%s", got, b.paneText())
	}
	if got := b.run("--repl-eval", "getpass.getuser()"); got != "'"+otherUser+"'\n" {
		t.Fatalf("the REPL runs as %q", got)
	}
	if got := b.run("--repl-eval", "def twice(n):\n    return n * 2"); got != "" {
		t.Fatalf("a def printed %q", got)
	}
	if got := b.run("--repl-eval", "twice(x)"); got != "42\n" {
		t.Fatalf("twice(x) said %q", got)
	}
	if r := b.send("--timeout", "1", "--repl-eval", "import time; time.sleep(30)"); r.code != 124 {
		t.Fatalf("a slow evaluation: want 124, got:\n%v", r)
	}
	if got := b.run("--repl-eval", "x"); got != "21\n" {
		t.Fatalf("after the interrupt, x is %q", got)
	}
	if r := b.send("--repl-close"); r.code != 0 {
		t.Fatalf("--repl-close:\n%v\npane:\n%s", r, b.paneText())
	}
	if got := b.run("--", "whoami"); got != otherUser+"\n" {
		t.Fatalf("after the REPL, whoami said %q", got)
	}
}
