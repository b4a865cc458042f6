package e2e

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A shell without ptybridge's hooks has no prompt events to tell its prompt from the human's
// keys, which its line editor has already read: the first call into it must still see their line.
func TestAShellsFirstCallKeepsAHalfTypedLine(t *testing.T) {
	for _, sh := range shells {
		t.Run("a new bridge's "+sh.name, func(t *testing.T) {
			t.Parallel()
			expectHalfTypedLineKept(t, startShellBridge(t, sh))
		})
	}
	for _, c := range []struct {
		name, keys string
		samePID    bool
	}{
		{"a shell the user started in it", "bash --norc -i\r", false},
		{"a shell the user exec'd", "exec bash --norc -i\r", true},
		{"another kind of shell the user started in it", "zsh -f\r", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := integrated(t)
			outer := b.run("--", "echo $$")
			b.waitForPrompt()
			b.terms[0].typeKeys(c.keys)
			b.waitFor("the new shell's prompt", func() bool {
				keys, line := strings.TrimSuffix(c.keys, "\r"), b.cursorLine()
				return strings.Count(b.paneText(), keys) == 1 && line != "" && !strings.Contains(line, keys)
			})
			expectHalfTypedLineKept(t, b)
			if got := b.run("--", "echo $$"); (got == outer) != c.samePID {
				t.Fatalf("the call must run in the user's new shell (the outer one was %q), got %q", outer, got)
			}
		})
	}
	t.Run("the shell started after the agent's exit", func(t *testing.T) {
		t.Parallel()
		b := integrated(t)
		if r := b.send("--", "exit"); r.code != 125 || !strings.Contains(r.stderr, "a new shell was started") {
			t.Fatalf("want exit 125 saying a new shell was started:\n%v", r)
		}
		b.waitForPrompt()
		expectHalfTypedLineKept(t, b)
	})
}

// expectHalfTypedLineKept has the human type part of a line: the agent's call is refused (75) and
// types nothing; the human's Enter runs their line whole, and the agent's next call runs.
func expectHalfTypedLineKept(t *testing.T, b *bridge) {
	t.Helper()
	human := b.terms[0]
	human.typeKeys("echo human-was-")
	b.waitFor("the human's keys to show", func() bool { return strings.Contains(b.cursorLine(), "echo human-was-") })
	r := b.send("--max-time", "5", "--", "echo agent")
	if r.code != 75 || !strings.Contains(r.stderr, "hint: ask the user") {
		t.Fatalf("want a refusal (75) of the half-typed line:\n%v\n%s", r, b.paneText())
	}
	human.typeKeys("here\r")
	b.waitFor("the human's own line to run intact", func() bool { return strings.Contains(b.paneText(), "\nhuman-was-here\n") })
	if got := b.run("--", "echo agent"); got != "agent\n" {
		t.Fatalf("after the human's Enter the agent runs again; got %q\n%s", got, b.paneText())
	}
}

func TestANewBridgesShellIsSetUpBeforeTheHumanSeesIt(t *testing.T) {
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			st, _ := b.status()
			if shell, _ := st["shell"].(map[string]any); shell == nil || shell["hooks"] != true || st["state"] != "idle" {
				t.Fatalf("the shell must have its hooks before the first call, and be idle: %v", st)
			}
			if pane := b.paneText(); strings.Contains(pane, b.runtimeDir()) || strings.Contains(pane, "[agent]") {
				t.Fatalf("the human must see their shell's prompt, nothing of the setting up:\n%s", pane)
			}
			if sh.name == "bash" {
				if h := b.run("--", "history"); strings.Contains(h, b.runtimeDir()) {
					t.Fatalf("the line that set the shell up must not be in the history:\n%s", h)
				}
			}
		})
	}
}

// zsh draws its prompt again when the terminal is resized, and every line editor when the
// human erases what they typed: the events say typed, the screen shows an empty prompt.
func TestAPromptDrawnAgainLeavesTheShellFree(t *testing.T) {
	for _, sh := range shells {
		t.Run(sh.name+": the terminal resized", func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			for i, cols := range []uint16{100, 90, 110} {
				must(t, b.terms[0].Resize(cols, uint16(30+i)))
				b.waitFor("the pane to take the new width", func() bool {
					return b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_width}") == strconv.Itoa(int(cols))
				})
				if got := b.run("--", "echo agent"); got != "agent\n" {
					t.Fatalf("want the call to run after the resize, got %q", got)
				}
			}
		})
		t.Run(sh.name+": a line typed and erased", func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			b.run("--", "true")
			b.waitForPrompt() // keys typed before it would show before it too, and stay
			b.terms[0].typeKeys("echo human-was-")
			b.waitFor("the human's keys to show", func() bool { return strings.Contains(b.cursorLine(), "echo human-was-") })
			b.terms[0].typeKeys("\x15") // Ctrl-U
			b.waitFor("the line to be erased", func() bool { return !strings.Contains(b.cursorLine(), "echo human-was-") })
			if got := b.run("--", "echo agent"); got != "agent\n" {
				t.Fatalf("want the call to run at the cleared prompt, got %q\n%s", got, b.paneText())
			}
		})
	}
}

// A shell the user starts inside the bridge has no hooks: a prompt ptysend cannot read as one is
// refused, unless the bridge's own shell showed the same when it was set up.
func TestAHooklessShellsPromptOfAnUnusualShape(t *testing.T) {
	for _, c := range []struct {
		name, shell, rc, pidVar string
		prompted                func(b *bridge) bool
	}{
		{"the same as the bridge's shell's", "bash", "PS1='➜  work '\n", "$$",
			func(b *bridge) bool { return strings.Count(b.paneText(), "➜  work") == 2 }},
		{"a right prompt", "fish", fishPrompts, "$fish_pid", func(b *bridge) bool {
			return strings.Count(b.paneText(), "Welcome to fish") == 2 && strings.Contains(b.cursorLine(), "[right 0]")
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sh := shellByName(t, c.shell)
			b := startShellBridge(t, sh, withRC(sh, c.rc))
			outer := b.run("--", "echo "+c.pidVar)
			b.terms[0].typeKeys(c.shell + "\r")
			b.waitFor("the inner shell's prompt", func() bool { return c.prompted(b) })
			if got := b.run("--", "echo "+c.pidVar); got == outer {
				t.Fatalf("the call must run in the inner shell, not in %s", outer)
			}
		})
	}
	t.Run("another", func(t *testing.T) {
		t.Parallel()
		b := integrated(t)
		b.terms[0].typeKeys("PS1='work ' bash --norc -i\r")
		b.waitFor("the inner shell's prompt", func() bool { return strings.HasPrefix(b.cursorLine(), "work") })
		r := b.send("--", "echo agent")
		if r.code != 75 || !strings.Contains(r.stderr, "\"work\" does not look like an empty prompt") || !strings.Contains(r.stderr, "leave that shell (exit)") {
			t.Fatalf("want a refusal (75) that says the prompt is not one ptysend reads, and what to do:\n%v", r)
		}
		if strings.Contains(b.paneText(), "echo agent") {
			t.Fatalf("nothing may be typed:\n%s", b.paneText())
		}
		b.terms[0].typeKeys("exit\r")
		b.waitFor("the outer shell", func() bool { return !strings.HasPrefix(b.cursorLine(), "work") })
		if got := b.run("--", "echo agent"); got != "agent\n" {
			t.Fatalf("back in the bridge's shell the call runs; got %q", got)
		}
	})
}

// A second ptybridge can join a new bridge while the first still waits to set its shell up: the
// set-up then reads the screen, as a call would, and types nothing after the human's keys.
func TestASecondTerminalsKeysDuringTheSetUpAreKept(t *testing.T) {
	sh := shellByName(t, "bash")
	b := newWorld(t, withShell(sh.path(t)), withRC(sh, "sleep 2\n")) // a slow rc file
	b.openTerminal()
	b.waitFor("the bridge session", func() bool { _, err := b.tmux("has-session", "-t", "="+b.name); return err == nil })
	second := b.openTerminal()
	// Under load the first terminal may come first: the keys are then typed at a prompt, as ever.
	b.waitFor("the second terminal to be attached", func() bool {
		out, _ := b.tmux("list-clients", "-t", "="+b.name, "-F", "#{client_pid}")
		return slices.Contains(strings.Fields(out), strconv.Itoa(second.Cmd.Process.Pid))
	})
	second.typeKeys("echo half") // before the prompt: the shell takes it as typed ahead
	b.waitFor("both terminals attached", func() bool {
		out, _ := b.tmux("display-message", "-p", "-t", "="+b.name+":", "#{session_attached}")
		return strings.TrimSpace(out) == "2"
	})
	second.typeKeys("-kept\r")
	b.waitFor("the human's line to run whole", func() bool { return strings.Contains(b.paneText(), "\nhalf-kept\n") })
	if pane := b.paneText(); strings.Contains(pane, b.runtimeDir()) {
		t.Fatalf("the set-up typed after the human's keys:\n%s", pane)
	}
}
