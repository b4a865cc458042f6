package e2e

import (
	"strings"
	"testing"
)

// A human whose line editor is in vi mode is refused only while it reads
// keys as commands (TestTypingIntoSomethingOfTheHumansIsRefusedWithNothingTyped):
// in insert mode, and at each new prompt, which starts in insert mode,
// the agent's commands run as in any shell.
func TestAViModeLineEditorTakesTheAgentsCommandsInInsertMode(t *testing.T) {
	for _, name := range []string{"bash", "zsh", "fish"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, shellByName(t, name))
			human := b.terms[0]
			b.run("--", "true") // installs the shell's hooks
			human.typeKeys(viModeOn[name] + "\r")
			b.waitForState("idle")
			expectRuns := func(when string) {
				t.Helper()
				if r := b.send("--", "echo agent-ran"); r.code != 0 || r.stdout != "agent-ran\n" {
					t.Fatalf("%s: want the agent's command run; got:\n%v\nthe pane shows:\n%s", when, r, b.paneText())
				}
			}
			expectRuns("in insert mode")

			human.typeKeys("\x1b")
			b.waitForState("vi_command_mode")
			human.typeKeys("i")
			b.waitForState("idle")
			expectRuns("back in insert mode (i)")

			// Enter in command mode runs the (empty) line: the next prompt
			// starts in insert mode.
			human.typeKeys("\x1b")
			b.waitForState("vi_command_mode")
			human.typeKeys("\r")
			b.waitForState("idle")
			expectRuns("at the prompt after Enter in command mode")

			// Ctrl-C in command mode gives up the line: a new prompt.
			human.typeKeys("\x1b")
			b.waitForState("vi_command_mode")
			human.typeKeys("\x03")
			b.waitForState("idle")
			expectRuns("at the prompt after Ctrl-C in command mode")

			// A line the human recalled in command mode and ran.
			human.typeKeys("echo human-ran\r\x1b")
			b.waitForState("vi_command_mode")
			human.typeKeys("k")
			b.waitForState("half_typed_line")
			human.typeKeys("\r")
			b.waitForState("idle")
			expectRuns("after the human ran a line recalled in command mode")
		})
	}
}

// A bash user who shows readline's mode in their prompt keeps their own
// indicators; ptysend's invisible ones go before them.
func TestBashsModeIndicatorsOfTheUsersOwnStay(t *testing.T) {
	sh := shellByName(t, "bash")
	rc := "set -o vi\nbind 'set show-mode-in-prompt on'\nbind 'set vi-ins-mode-string \"<ins>\"'\nbind 'set vi-cmd-mode-string \"<cmd>\"'\n"
	b := startShellBridge(t, sh, withRC(sh, rc))
	human := b.terms[0]
	b.run("--", "true")
	b.waitForState("idle")
	b.waitFor("the user's insert indicator", func() bool { return strings.HasPrefix(b.cursorLine(), "<ins>") })
	human.typeKeys("\x1b")
	b.waitForState("vi_command_mode")
	b.waitFor("the user's command indicator", func() bool { return strings.HasPrefix(b.cursorLine(), "<cmd>") })
	human.typeKeys("i")
	b.waitForState("idle")
	if got := b.run("--", "echo agent-ran"); got != "agent-ran\n" {
		t.Fatalf("got %q", got)
	}
	b.waitFor("the user's insert indicator again", func() bool { return strings.HasPrefix(b.cursorLine(), "<ins>") })
}

// A far shell has the local shell's hooks, its line editor's mode among them.
func TestAFarShellInViCommandModeIsRefused(t *testing.T) {
	needOtherUser(t)
	otherHome(t)
	for _, name := range []string{"bash", "zsh", "fish"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := newWorld(t)
			term := b.openTerminal()
			b.waitReady()
			suOther(t, b, term, shellByName(t, name).path(t))
			b.run("--", "true") // the far shell's hooks
			enterViCommandMode(b, name)
			r := b.send("--", "echo agent-ran")
			expectRefusal(t, r)
			if strings.Contains(b.paneText(), "agent-ran") {
				t.Fatalf("nothing may be typed; the pane shows:\n%s", b.paneText())
			}
			term.typeKeys("i")
			b.waitForState("idle")
			if got := b.run("--", "echo agent-ran"); got != "agent-ran\n" {
				t.Fatalf("got %q", got)
			}
		})
	}
}
