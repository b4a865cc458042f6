package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func TestBridgeCreatesThePerUserSession(t *testing.T) {
	b := startBridge(t, withShell("/usr/bin/dash"))
	got := b.mustTmux("display-message", "-p", "-t", "="+b.name+":",
		"#{session_name} #{history_limit} #{pane_current_command}")
	want := b.name + " 100000 dash"
	if got != want {
		t.Fatalf("session, history-limit of the first pane, shell:\nwant %q\n got %q", want, got)
	}
	if b.name != "ptybridge-"+currentUser() {
		t.Fatalf("default name %q", b.name)
	}
}

func TestBridgeFallsBackToTheOSForUserAndShell(t *testing.T) {
	b := newWorld(t)
	b.env = without(b.env, "USER", "SHELL")
	b.openTerminal()
	b.waitReady()
	loginShell := filepath.Base(passwdField(t, 6))
	got := b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_current_command}")
	if got != loginShell {
		t.Fatalf("want the login shell %q from the user database, got %q", loginShell, got)
	}
}

func without(env []string, keys ...string) []string {
	var out []string
	for _, kv := range env {
		keep := true
		for _, k := range keys {
			if strings.HasPrefix(kv, k+"=") {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}

// passwdField is a field of the current user's entry in the user database.
func passwdField(t *testing.T, i int) string {
	out, err := exec.Command("getent", "passwd", strconv.Itoa(os.Getuid())).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(out)), ":")[i]
}

func TestSecondTerminalJoinsAndTheLastOneToCloseEndsTheSession(t *testing.T) {
	b := startBridge(t)
	first := b.terms[0]
	second := b.openTerminal()
	b.waitFor("two attached terminals", func() bool {
		out, _ := b.tmux("display-message", "-p", "-t", "="+b.name+":", "#{session_attached}")
		return strings.TrimSpace(out) == "2"
	})
	b.run("--", "export SHARED=yes")

	first.close()
	b.waitFor("one attached terminal", func() bool {
		out, _ := b.tmux("display-message", "-p", "-t", "="+b.name+":", "#{session_attached}")
		return strings.TrimSpace(out) == "1"
	})
	if got := b.run("--", `echo "$SHARED"`); got != "yes\n" {
		t.Fatalf("the session must outlive the first terminal with its state; got %q", got)
	}

	second.close()
	b.waitFor("the session to end", func() bool {
		_, err := b.tmux("has-session", "-t", "="+b.name)
		return err != nil
	})
	if r := b.send("--", "true"); r.code != 125 || !strings.Contains(r.stderr, "No PTY bridge session is running") {
		t.Fatalf("after the last terminal closed:\n%v", r)
	}
}

// tmux's own destroy-unattached (every release to 3.7c) crashes the server, and every session of
// the user's with it, when it destroys a session that a suspended terminal (C-b C-z) still shows:
// any tmux command did it then. The bridge ends its session itself.
func TestASuspendedTerminalNeitherEndsTheSessionNorCrashesTmux(t *testing.T) {
	b := startBridge(t)
	b.mustTmux("new-session", "-d", "-s", "users-own")
	suspended := b.terms[0]
	b.mustTmux("suspend-client", "-t", b.clientOf(suspended))
	if out, err := b.tmux("list-sessions", "-F", "#{session_name}"); err != nil || !strings.Contains(out, b.name) {
		t.Fatalf("with the terminal suspended, a tmux command must find the server and the bridge: %v\n%s", err, out)
	}
	if got := b.run("--", "echo after"); got != "after\n" {
		t.Fatalf("a call with the terminal suspended: %q", got)
	}

	second := b.openTerminal()
	b.waitFor("two terminals", func() bool { return strings.Count(b.mustTmux("list-clients", "-t", "="+b.name), "\n") == 1 })
	second.close()
	b.waitFor("the second terminal to leave", func() bool { return !strings.Contains(b.mustTmux("list-clients"), "\n") })
	if _, err := b.tmux("has-session", "-t", "="+b.name); err != nil {
		t.Fatal("the session ended while a suspended terminal still showed it")
	}

	suspended.close()
	b.waitFor("the session to end with its last terminal", func() bool {
		_, err := b.tmux("has-session", "-t", "="+b.name)
		return err != nil
	})
	if out, err := b.tmux("list-sessions", "-F", "#{session_name}"); err != nil || out != "users-own\n" {
		t.Fatalf("the user's other session must be left as it was: %v %q", err, out)
	}
}

// A detach-client from another process marks the terminal as leaving before it is gone; then the
// command's own client leaves, and tmux's destroy-unattached destroyed the session under the
// leaving terminal: the server crashed in about 1 run of 10.
func TestADetachFromElsewhereEndsTheSessionAndNothingElse(t *testing.T) {
	for i := range 10 {
		b := startBridge(t)
		b.mustTmux("new-session", "-d", "-s", "users-own")
		b.mustTmux("detach-client", "-s", "="+b.name)
		b.waitFor("the session to end", func() bool {
			_, err := b.tmux("has-session", "-t", "="+b.name)
			return err != nil
		})
		if out, err := b.tmux("list-sessions", "-F", "#{session_name}"); err != nil || out != "users-own\n" {
			t.Fatalf("run %d: the user's other session must be left as it was: %v %q", i, err, out)
		}
		b.cleanup()
	}
}

// The hook that ends a bridge runs on any terminal's leaving and looks at every session: it ends
// only the bridges no terminal shows.
func TestClosingOneBridgesTerminalLeavesAnotherBridgeRunning(t *testing.T) {
	b := startBridge(t)
	second := b.openTerminal("--session", "second")
	b.waitFor("the second bridge", func() bool { return b.send("--session", "second", "--status").code == 0 })
	// Its shell is set up before its terminal attaches: the terminal closed
	// is one that shows it.
	b.waitFor("the second terminal to attach", func() bool { return b.mustTmux("list-clients", "-t", "=second") != "" })
	b.run("--", "export KEPT=yes")

	second.close()
	b.waitFor("the second bridge to end", func() bool {
		_, err := b.tmux("has-session", "-t", "=second")
		return err != nil
	})
	if got := b.run("--", `echo "$KEPT"`); got != "yes\n" {
		t.Fatalf("the first bridge must run on as it was: got %q", got)
	}
}

// ptybridge sets the new shell up before it attaches; a terminal closed (or a Ctrl-C) in that
// moment left a session that no terminal would ever show, nor end, and that ptysend typed into.
func TestABridgeAbandonedBeforeItAttachesLeavesNoSession(t *testing.T) {
	for _, leave := range []string{"close the terminal", "press Ctrl-C"} {
		b := newWorld(t)
		// A slow shell start holds ptybridge in its set-up (it waits up to 3 s for the prompt).
		started := filepath.Join(b.dir, "started")
		profile := fmt.Sprintf("touch %s; sleep 20\n", started)
		for _, rc := range []string{".bash_profile", ".bashrc"} {
			if err := os.WriteFile(filepath.Join(b.dir, "home", rc), []byte(profile), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		term := b.openTerminal()
		b.waitFor("the shell to start", func() bool { _, err := os.Stat(started); return err == nil })
		if clients := b.mustTmux("list-clients"); clients != "" {
			t.Fatalf("%s: the terminal attached before the shell's set-up ended: %s", leave, clients)
		}
		if leave == "close the terminal" {
			term.close()
		} else {
			term.typeKeys("\x03")
		}
		b.waitFor("the session to end", func() bool {
			_, err := b.tmux("has-session", "-t", "="+b.name)
			return err != nil
		})
		b.cleanup()
	}
}

// A Ctrl-C that interrupts one of the tmux commands that open the session (here the hook that
// records copy mode, held back by a tmux on PATH that waits before it runs the real one) failed
// Open: ptybridge printed the error and exited before the session it had made was ended.
func TestABridgeInterruptedWhileItOpensTheSessionLeavesNoSession(t *testing.T) {
	realTmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal(err)
	}
	b := newWorld(t)
	shim := filepath.Join(b.dir, "slow-tmux")
	reached := filepath.Join(b.dir, "reached")
	must(t, os.MkdirAll(shim, 0o755))
	script := fmt.Sprintf("#!/bin/sh\ncase \"$*\" in *pane-mode-changed*) touch %s; sleep 5 ;; esac\nexec %s \"$@\"\n", reached, realTmux)
	must(t, os.WriteFile(filepath.Join(shim, "tmux"), []byte(script), 0o755))
	b.setenv("PATH", shim+":"+b.getenv("PATH"))
	term := b.openTerminal()
	b.waitFor("ptybridge to run the hook's tmux command", func() bool { _, err := os.Stat(reached); return err == nil })
	term.typeKeys("\x03")
	b.waitFor("the session to end", func() bool {
		_, err := b.tmux("has-session", "-t", "="+b.name)
		return err != nil
	})
}

func TestBridgeNeedsATerminal(t *testing.T) {
	b := newWorld(t)
	cmd := exec.Command(filepath.Join(bin, "ptybridge"))
	cmd.Env = b.env
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("ptybridge without a terminal must fail; printed %q", out)
	}
	if !strings.HasPrefix(string(out), "ptybridge: error: ") || !strings.Contains(string(out), "terminal") {
		t.Fatalf("want a clear error about the terminal, got %q", out)
	}
	if _, err := b.tmux("has-session", "-t", "="+b.name); err == nil {
		t.Fatal("no session may be left behind")
	}
}

func TestBridgeStartsInsideAnotherTmux(t *testing.T) {
	b := newWorld(t)
	socket := filepath.Join(b.dir, "tmux-"+strconv.Itoa(os.Getuid()), "default")
	b.mustTmux("new-session", "-d", "-s", "outer")
	// As inside a pane of the outer tmux: tmux alone would refuse to nest.
	b.setenv("TMUX", socket+",1,0")
	b.setenv("TMUX_PANE", "%0")
	term := b.openTerminal()
	b.waitReady()
	if r := b.send("--", "echo nested"); r.stdout != "nested\n" {
		sessions, _ := b.tmux("list-sessions")
		t.Fatalf("got:\n%v\nsessions: %s\nthe terminal showed:\n%q", r, sessions, term.screen())
	}
}

func TestBridgeHonoursTMUX_TMPDIR(t *testing.T) {
	b := startBridge(t)
	socket := filepath.Join(b.dir, "tmux-"+strconv.Itoa(os.Getuid()), "default")
	if fi, err := os.Stat(socket); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("the tmux server must listen under TMUX_TMPDIR (%s): %v", socket, err)
	}
}

func TestClosingTheBridgeDuringACommandFailsClearly(t *testing.T) {
	b := startBridge(t)
	cmd := b.ptysend(nil, "--timeout", "0", "--max-time", "0", "--", "echo started; sleep 300")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	b.waitFor("sleep to run in the pane", func() bool {
		out, _ := b.tmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_current_command}")
		return strings.TrimSpace(out) == "sleep"
	})
	b.terms[0].close()
	// No time limit here: with no timeouts, only the closed bridge can end
	// the call; a hang is caught by the harness's guard.
	err := cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if code != 125 || !strings.Contains(stderr.String(), "bridge terminal was closed") ||
		!strings.Contains(stderr.String(), "restart ptybridge") {
		t.Fatalf("want exit 125 saying the bridge was closed and to restart ptybridge; got %v, exit %d, stderr %q", err, code, stderr.String())
	}
	if stdout.String() != "started\n" {
		t.Fatalf("the output so far must still be printed, got %q", stdout.String())
	}
}

func TestBusyPaneIsRefusedWithoutTyping(t *testing.T) {
	b := startBridge(t)
	human := b.terms[0]
	human.typeKeys("sleep 300\r")
	b.waitFor("the human's sleep to run", func() bool {
		out, _ := b.tmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_current_command}")
		return strings.TrimSpace(out) == "sleep"
	})
	r := b.send("--", "echo agent")
	if r.code != 75 || !strings.Contains(r.stderr, `"sleep"`) || !strings.Contains(r.stderr, "hint: ask the user") {
		t.Fatalf("want exit 75 naming sleep and saying what to ask:\n%v", r)
	}
	if pane := b.paneText(); strings.Contains(pane, ".sh'") || strings.Contains(pane, "[agent]") {
		t.Fatalf("nothing may be typed into a busy pane:\n%s", b.paneText())
	}
	human.typeKeys("\x03")
	b.waitFor("the prompt to come back", func() bool {
		return b.send("--", "true").code == 0
	})
}

func TestBusyHintTellsHowToLeaveThePager(t *testing.T) {
	b := startBridge(t)
	human := b.terms[0]
	human.typeKeys("less /etc/passwd\r")
	b.waitFor("less to show the file", func() bool { return b.paneCommand() == "less" })
	r := b.send("--", "echo agent")
	expectCode(t, r, 75)
	// less ignores Ctrl-C: the hint names its own key.
	expectStderr(t, r, `"less" is running`, "hint: ask the user to quit less in the ptybridge terminal (press q there)")
	if strings.Contains(r.stderr, "Ctrl-C") {
		t.Fatalf("Ctrl-C does not leave less:\n%v", r)
	}
	human.typeKeys("q")
	b.waitFor("the agent to run once less is gone", func() bool { return b.send("--", "true").code == 0 })
}

func TestRelayIsRestartedWhenItDied(t *testing.T) {
	b := startBridge(t)
	pid := relayPID(t, b)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if got := b.run("--", "echo after-repair"); got != "after-repair\n" {
		t.Fatalf("got %q", got)
	}
	if relayPID(t, b) == pid {
		t.Fatal("the dead relay was not replaced")
	}
}

// relayPID finds the shared pane's relay of this test's bridge (a job
// window's relay is the same program, on its own socket).
func relayPID(t *testing.T, b *bridge) int {
	t.Helper()
	matches, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, m := range matches {
		raw, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		args := strings.Split(string(raw), "\x00")
		if len(args) > 2 && args[1] == "--relay" && args[2] == filepath.Join(b.runtimeDir(), b.name+".sock") {
			pid, _ := strconv.Atoi(strings.Split(m, "/")[2])
			return pid
		}
	}
	t.Fatal("no relay process found")
	return 0
}
