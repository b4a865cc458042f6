package e2e

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// Sharing the terminal with the human: the agent is a guest, and never
// types into something the human is doing.

// integrated makes one call, which installs the shell integration.
func integrated(t *testing.T, opts ...option) *bridge {
	t.Helper()
	b := startBridge(t, opts...)
	b.run("--", "true")
	return b
}

func (b *bridge) paneCommand() string {
	out, _ := b.tmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_current_command}")
	return strings.TrimSpace(out)
}

func TestHalfTypedLineIsLeftIntact(t *testing.T) {
	b := integrated(t)
	human := b.terms[0]
	human.typeKeys("echo human-was-")
	b.waitFor("the human's keys to show", func() bool { return strings.Contains(b.paneText(), "echo human-was-") })

	r := b.send("--", "echo agent")
	if r.code != 125 || !strings.Contains(r.stderr, "not pressed Enter") || !strings.Contains(r.stderr, "hint: ask the user") {
		t.Fatalf("want a refusal that explains the half-typed line:\n%v", r)
	}
	human.typeKeys("here\r")
	b.waitFor("the human's own command to run intact", func() bool {
		return strings.Contains(b.paneText(), "\nhuman-was-here\n")
	})
	if got := b.run("--", "echo agent"); got != "agent\n" {
		t.Fatalf("after the human's Enter the agent runs again; got %q", got)
	}
}

func TestShellBusyWithBuiltinsIsRefused(t *testing.T) {
	for _, c := range []struct {
		name, keys string
		running    func(state, wchan string) bool
	}{
		{"a loop of builtins", "while :; do :; done\r", func(state, _ string) bool { return state == "R" }},
		{"a builtin read", "read answer\r", func(_, wchan string) bool { return wchan == "wait_woken" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := integrated(t)
			human := b.terms[0]
			human.typeKeys(c.keys)
			b.waitFor("the shell to run the human's command", func() bool { return c.running(b.shellState()) })
			r := b.send("--", "echo agent")
			if r.code != 125 || !strings.Contains(r.stderr, "running a command of the user's") {
				t.Fatalf("to tmux the shell looks idle; the agent must still see it is busy:\n%v", r)
			}
			if strings.Contains(b.paneText(), "agent") {
				t.Fatalf("nothing may be typed:\n%s", b.paneText())
			}
			human.typeKeys("\x03")
			b.waitFor("the agent to get the prompt back", func() bool { return b.send("--", "true").code == 0 })
		})
	}
}

func TestCopyModeIsRespected(t *testing.T) {
	b := integrated(t)
	human := b.terms[0]
	human.typeKeys("\x02[") // the prefix, then [: the human scrolls back
	b.waitFor("copy mode", func() bool {
		return b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_in_mode}") == "1"
	})

	r := b.send("--", "echo agent")
	if r.code != 125 || !strings.Contains(r.stderr, "copy mode") || !strings.Contains(r.stderr, "press q") {
		t.Fatalf("want a refusal naming copy mode:\n%v", r)
	}
	if b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_in_mode}") != "1" {
		t.Fatal("the human's copy mode must be left as it was")
	}
	human.typeKeys("q")
	b.waitFor("the agent to run after copy mode", func() bool { return b.send("--", "true").code == 0 })
}

func TestAgentLinesStayOutOfHistory(t *testing.T) {
	b := startBridge(t, withEnv("HISTCONTROL", ""))
	for _, cmd := range []string{"true", "echo one", "echo two"} {
		b.run("--", cmd)
	}
	b.terms[0].typeKeys("echo typed-by-human\r")
	b.waitFor("the human's command", func() bool { return strings.Contains(b.paneText(), "\ntyped-by-human") })
	hist := b.run("--", "history")
	if strings.Contains(hist, b.runtimeDir()) || !strings.Contains(hist, "echo typed-by-human") {
		t.Fatalf("history must hold the human's commands and none of the agent's lines:\n%s", hist)
	}
}

// shellState is the state letter and wait channel of the pane's process,
// as /proc shows them: R while running, wait_woken while reading the tty.
func (b *bridge) shellState() (state, wchan string) {
	pid := b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_pid}")
	stat, _ := os.ReadFile("/proc/" + pid + "/stat")
	w, _ := os.ReadFile("/proc/" + pid + "/wchan")
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return fields[0], string(w)
}
