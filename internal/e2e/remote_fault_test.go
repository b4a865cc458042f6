package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// Remote bridges' faults: the connection lost mid-command, a cache that is not the host user's
// own, a host that cannot run the local binaries, a host that cannot be reached.

// The TCP connection cut under both ends (ss -K destroys the sockets, as a network that drops
// the connection would, without waiting for ssh's keepalives): the master and the host's sshd
// see it end; the command goes on in the host's session.
func TestRemoteTCPConnectionCutMidCommand(t *testing.T) {
	h := startRemoteHost(t)
	b := h.world()
	lostMidCommand(t, h, b, func() {
		if out, err := exec.Command("ss", "-K", "dst", "127.0.0.1", "dport", "=", fmt.Sprint(h.srv.port)).CombinedOutput(); err != nil {
			t.Fatalf("ss -K: %v: %s", err, out)
		}
	})
}

// lostMidCommand has the human open the remote bridge, the agent start a command, cut the
// connection with cut, and checks the call's failure, the refusal without a connection, and that
// the human, reattached, and the agent find the command's output and the shell's state on the
// host; it returns the reattached terminal.
func lostMidCommand(t *testing.T, h *remoteHost, b *bridge, cut func()) *terminal {
	t.Helper()
	term := h.open(b)
	b.run(at("--", "cd /usr/share && export PTB_KEPT=kept")...)

	call := b.start(false, at("--", "echo started; sleep 2; echo finished-on-host")...)
	b.waitFor("the command to start on the host", func() bool { return strings.Contains(call.stdout.String(), "started") })
	cut()
	r := call.wait(t)
	if r.code != 125 || !strings.Contains(r.stderr, "goes on on the host") || !strings.Contains(r.stderr, "hint: ask the user to run ptybridge --host "+h.dest+" again") ||
		!strings.Contains(r.stderr, "--history") {
		t.Fatalf("want 125 saying the command goes on on the host and how to find it, got:\n%v", r)
	}
	if code := term.exited(t); code != 1 || !strings.Contains(screenText(term.screen()), "the connection to "+h.dest+" was lost") {
		t.Fatalf("the human's ptybridge exited %d; its terminal showed:\n%s", code, screenText(term.screen()))
	}
	t.Run("without a connection, a call is refused at once with the hint", func(t *testing.T) {
		r := b.send(at("--", "echo typed")...)
		if r.code != 75 || !strings.Contains(r.stderr, "ptybridge --host "+h.dest) {
			t.Fatalf("want 75 and the hint, got:\n%v", r)
		}
		if out := b.run("--sessions"); !regexp.MustCompile(`(?m)^far\t` + otherUser + `@127\.0\.0\.1\t.*\tdisconnected: no connection`).MatchString(out) {
			t.Fatalf("--sessions:\n%s", out)
		}
	})
	h.waitAttached(b, term, false)

	term = h.open(b)
	t.Run("reattached, the command's output and the shell's state are there", func(t *testing.T) {
		var id string
		b.waitFor("the command to be over in the host's history", func() bool {
			for _, line := range strings.Split(b.run(at("--history")...), "\n") {
				if f := strings.Fields(line); len(f) > 2 && strings.Contains(line, "finished-on-host") && f[2] == "0" {
					id = f[0]
					return true
				}
			}
			return false
		})
		if out := b.run(at("--output=" + id)...); !strings.Contains(out, "finished-on-host") {
			t.Fatalf("--output=%s: %q", id, out)
		}
		if got := b.run(at("--", `pwd; echo "$PTB_KEPT"`)...); got != "/usr/share\nkept\n" {
			t.Fatalf("got %q", got)
		}
	})
	return term
}

func at(args ...string) []string { return append([]string{"--session", remoteSession}, args...) }

func TestRemoteConnectionLostMidCommand(t *testing.T) {
	h := startRemoteHost(t)
	b := h.world()
	// The master killed: the local end of the connection gone.
	term := lostMidCommand(t, h, b, func() { must(t, syscall.Kill(masterPID(t, b, h), syscall.SIGKILL)) })
	t.Run("the shell's exit ends the bridge for good: the master closes, the record goes", func(t *testing.T) {
		term.typeKeys("exit\r")
		if code := term.exited(t); code != 0 {
			t.Fatalf("ptybridge --host exited %d:\n%s", code, screenText(term.screen()))
		}
		if left, _ := filepath.Glob(filepath.Join(b.runtimeDir(), "*")); len(left) != 0 {
			for _, f := range left {
				if strings.HasSuffix(f, ".remote") || strings.Contains(f, "/ssh-") {
					t.Fatalf("left in the runtime directory: %q", left)
				}
			}
		}
		if out := b.send("--sessions").stdout; strings.Contains(out, "far\t") {
			t.Fatalf("--sessions still lists it:\n%s", out)
		}
	})
}

// openFails has the human run ptybridge --host, which must fail saying what and what to do.
func (h *remoteHost) openFails(t *testing.T, b *bridge, what string) {
	t.Helper()
	term := b.openTerminal("--host", h.dest, "--session", remoteSession)
	code := term.exited(t)
	shown := screenText(term.screen())
	if code != 1 || !strings.Contains(shown, "ptybridge: error: ") || !strings.Contains(shown, what) || !strings.Contains(shown, "hint: ") {
		t.Fatalf("want ptybridge to exit 1 saying %q and a hint, got %d:\n%s", what, code, shown)
	}
	if recs, _ := filepath.Glob(filepath.Join(b.runtimeDir(), "*.remote")); len(recs) != 0 {
		t.Fatalf("a failed ptybridge --host left a record: %q", recs)
	}
}

func TestRemoteRefusesACacheNotTheUsers(t *testing.T) {
	h := startRemoteHost(t)
	b := h.world()
	base := filepath.Join(h.dir, "home", ".cache", "ptybridge")
	must(t, os.MkdirAll(base, 0o755)) // ours (root's): another user's to the host user
	h.openFails(t, b, "is owned by uid 0, not by you")
	must(t, h.user.Own(filepath.Join(h.dir, "home")))
	must(t, os.Chmod(base, 0o775))
	h.openFails(t, b, "other users can write to it")
	if entries, _ := os.ReadDir(base); len(entries) != 0 {
		t.Fatalf("something was copied into the refused cache: %v", entries)
	}
}

func TestRemoteRefusesAHostOfAnotherSystem(t *testing.T) {
	h := startRemoteHost(t)
	b := h.world(withEnv("PTYBRIDGE_TEST_LOCAL_UNAME", "Plan9 mips"))
	h.openFails(t, b, "cannot run there")
	term := b.terms[0]
	if shown := screenText(term.screen()); !strings.Contains(shown, "go install github.com/ptybridge/ptybridge/cmd/...@latest") || strings.Contains(shown, "copying pty") {
		t.Fatalf("want the install hint and nothing copied:\n%s", shown)
	}
}

func TestRemoteUnreachableHost(t *testing.T) {
	h := startRemoteHost(t)
	b := h.world(withEnv("PTYBRIDGE_SSH", h.sshCommandTo(1)))
	h.openFails(t, b, "could not connect to "+h.dest)
	if r := b.send(at("--", "true")...); r.code == 0 {
		t.Fatalf("a call to a bridge never opened succeeded:\n%v", r)
	}
}
