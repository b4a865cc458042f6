package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// fishPrompts is a fish configuration with a multi-line prompt and a
// right prompt, both showing the last status: fish redraws the right
// prompt after each key the human types.
const fishPrompts = "function fish_prompt\n    set -l s $status\n    echo fish-prompt-line-one\n    echo -n \"[$s]> \"\nend\n" +
	"function fish_right_prompt\n    echo -n \"[right $status]\"\nend\n"

func TestHalfTypedLineIsLeftIntact(t *testing.T) {
	for _, c := range []struct {
		name, shell, rc string
	}{
		{"bash", "bash", ""},
		{"fish", "fish", ""},
		{"fish with a multi-line prompt and a right prompt", "fish", fishPrompts},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sh := shellByName(t, c.shell)
			b := startShellBridge(t, sh, withRC(sh, c.rc))
			checkUnaffectedCalls(t, b) // the first installs the hooks
			human := b.terms[0]
			human.typeKeys("echo human-was-")
			b.waitFor("the human's keys to show", func() bool { return strings.Contains(b.paneText(), "echo human-was-") })

			r := b.send("--max-time", "3", "--", "echo agent")
			if r.code != 75 || !strings.Contains(r.stderr, "not pressed Enter") || !strings.Contains(r.stderr, "hint: ask the user") {
				t.Fatalf("want a refusal that explains the half-typed line:\n%v", r)
			}
			human.typeKeys("here\r")
			b.waitFor("the human's own command to run intact", func() bool {
				return strings.Contains(b.paneText(), "\nhuman-was-here\n")
			})
			if got := b.run("--", "echo agent"); got != "agent\n" {
				t.Fatalf("after the human's Enter the agent runs again; got %q", got)
			}
		})
	}
}

func TestShellBusyWithBuiltinsIsRefused(t *testing.T) {
	for _, c := range []struct {
		name, shell, keys string
		running           func(b *bridge) bool
	}{
		{"bash: a loop of builtins", "bash", "while :; do :; done\r", isRunning},
		{"bash: a builtin read", "bash", "read answer\r", func(b *bridge) bool { _, wchan := b.shellState(); return wchan == "wait_woken" }},
		{"fish: a loop of builtins", "fish", "while true; end\r", isRunning},
		// fish's read runs fish's own line editor, as its prompt does.
		{"fish: a builtin read", "fish", "read answer\r", func(b *bridge) bool { return strings.Contains(b.paneText(), "\nread> ") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := integrated(t, withShell(shellByName(t, c.shell).path(t)))
			human := b.terms[0]
			human.typeKeys(c.keys)
			b.waitFor("the shell to run the human's command", func() bool { return c.running(b) })
			r := b.send("--", "echo agent")
			if r.code != 75 || !strings.Contains(r.stderr, "running a command of the user's") {
				t.Fatalf("to tmux the shell looks idle; the agent must still see it is busy:\n%v", r)
			}
			if strings.Contains(b.paneText(), "echo agent") {
				t.Fatalf("nothing may be typed:\n%s", b.paneText())
			}
			human.typeKeys("\x03")
			b.waitFor("the agent to get the prompt back", func() bool { return b.send("--", "true").code == 0 })
		})
	}
}

// isRunning: the pane's shell stays on a CPU, or ready to be, for 100 ms:
// longer than it runs to read and echo the keys of the line.
func isRunning(b *bridge) bool {
	for range 5 {
		if state, _ := b.shellState(); state != "R" {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

func TestCopyModeIsRespected(t *testing.T) {
	b := integrated(t)
	human := b.terms[0]
	human.typeKeys("\x02[") // the prefix, then [: the human scrolls back
	b.waitForCopyMode(true)

	r := b.send("--", "echo agent")
	if r.code != 75 || !strings.Contains(r.stderr, "copy mode") || !strings.Contains(r.stderr, "press q") {
		t.Fatalf("want a refusal naming copy mode:\n%v", r)
	}
	if b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_in_mode}") != "1" {
		t.Fatal("the human's copy mode must be left as it was")
	}
	human.typeKeys("q")
	b.waitFor("the agent to run after copy mode", func() bool { return b.send("--", "true").code == 0 })
}

func TestAgentLinesStayOutOfHistory(t *testing.T) {
	for _, shell := range []string{"bash", "fish"} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, shellByName(t, shell), withEnv("HISTCONTROL", ""))
			for _, cmd := range []string{"true", "echo one", "echo two"} {
				b.run("--", cmd)
			}
			b.terms[0].typeKeys("echo typed-by-human\r")
			b.waitFor("the human's command", func() bool { return strings.Contains(b.paneText(), "\ntyped-by-human") })
			hist := b.run("--", "history")
			if strings.Contains(hist, b.runtimeDir()) || strings.Contains(hist, "ptybridge") || !strings.Contains(hist, "echo typed-by-human") {
				t.Fatalf("history must hold the human's commands and none of the agent's lines:\n%s", hist)
			}
		})
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

func TestACommandWaitingForTheHumanIsNotKilledByTheNoOutputTimeout(t *testing.T) {
	b := integrated(t)
	cmd := b.ptysend(nil, "--timeout", "1", "--", `python3 -c 'import getpass; print(getpass.getpass("Secret: ") == "s3cret")'`)
	var stdout strings.Builder
	stderr := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	must(t, cmd.Start())
	// The human answers only once ptysend has noticed the wait, that is
	// after the no-output timeout passed at least once.
	b.waitFor("ptysend to say the command waits for the user", func() bool {
		return strings.Contains(stderr.String(), "the terminal asks")
	})
	b.terms[0].typeKeys("s3cret\r")
	cmd.Wait()
	// The prompt the program writes to the terminal itself is the
	// terminal's question to the human: in the note, not in stdout; the
	// password is not echoed.
	if code := cmd.ProcessState.ExitCode(); code != 0 || stdout.String() != "True\n" {
		t.Fatalf("want exit 0 and True, got %d, %q, stderr %q", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), `"Secret:"`) || strings.Count(stderr.String(), "the terminal asks") != 1 {
		t.Fatalf("want one notice quoting the prompt, got %q", stderr.String())
	}
}

func TestTheOverallTimeoutStillAppliesWhileWaitingForTheHuman(t *testing.T) {
	b := integrated(t)
	r := b.send("--timeout", "0.5", "--max-time", "2", "--", `python3 -c 'import getpass; getpass.getpass("Never answered: ")'`)
	if r.code != 124 || !strings.Contains(r.stderr, "--max-time") || !strings.Contains(r.stderr, "Never answered:") {
		t.Fatalf("want exit 124 from --max-time after the notice:\n%v", r)
	}
}

func TestPagersPrintStraightThroughForTheAgentOnly(t *testing.T) {
	repo := t.TempDir()
	git := func(args ...string) {
		args = append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	// 100 commits: more than the 40 rows of the screen, so a pager would
	// stop and wait for a key.
	for i := range 100 {
		git("commit", "-q", "--allow-empty", "-m", fmt.Sprint("c", i))
	}
	for _, shell := range []string{"/bin/bash", "/usr/bin/zsh", "/usr/bin/fish", "/usr/bin/dash"} {
		t.Run(filepath.Base(shell), func(t *testing.T) {
			t.Parallel()
			b := startBridge(t, withShell(shell), withEnv("PAGER", "less"), withEnv("LESS", ""))
			r := b.send("--timeout", "5", "--", "git -C "+repo+" log --oneline")
			if r.code != 0 || strings.Count(r.stdout, "\n") != 100 {
				t.Fatalf("git log must print its 100 lines straight through:\n%v", r)
			}
			if r := b.send("--timeout", "5", "--", "man ls"); r.code != 0 || !strings.Contains(r.stdout, "list directory contents") {
				t.Fatalf("man must print straight through:\n%v", r)
			}
			// The human types at their prompt (typeahead in the instant after
			// man ends is another matter).
			b.waitFor("the prompt", func() bool {
				return b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{cursor_x}") != "0"
			})
			b.terms[0].typeKeys("echo \"human-pager=$PAGER git=[$GIT_PAGER]\"\r")
			b.waitFor("the human's pager settings, unchanged", func() bool {
				return strings.Contains(b.paneText(), "\nhuman-pager=less git=[]")
			})
		})
	}
}

func TestTheHumanSeesEachAgentCommandReadably(t *testing.T) {
	b := startBridge(t)
	b.run("--", "echo shown-to-the-human")
	b.run("--", "echo first line\necho second line")
	pane := b.paneText()
	for _, want := range []string{"[agent] $ echo shown-to-the-human\n", "[agent] $ echo first line …\n"} {
		if !strings.Contains(pane, want) {
			t.Errorf("the pane lacks %q:\n%s", want, pane)
		}
	}
}

func TestCommandsThatEndTheShellDoNotEndTheSession(t *testing.T) {
	for _, c := range []struct{ name, cmd string }{
		{"exit", "echo bye; exit 3"},
		{"exec", "exec true"},
		{"set -e and a failure", "set -e; false; echo never"},
		{"killing the shell", "kill -9 $$"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := integrated(t)
			r := b.send("--", c.cmd)
			if r.code != 125 || !strings.Contains(r.stderr, "ended the shell of the shared terminal") ||
				!strings.Contains(r.stderr, "a new shell was started") {
				t.Fatalf("want exit 125 explaining the new shell:\n%v", r)
			}
			if got := b.run("--", "echo alive"); got != "alive\n" {
				t.Fatalf("the new shell must take commands, got %q", got)
			}
			select {
			case <-b.terms[0].Done:
				t.Fatalf("the human's terminal closed:\n%s", b.terms[0].screen())
			default:
			}
		})
	}
}

func TestSetELeftOnIsTurnedOffAgain(t *testing.T) {
	b := integrated(t)
	pid := b.run("--", "echo $$")
	r := b.send("--", "set -e")
	if r.code != 0 || !strings.Contains(r.stderr, "turned on set -e") {
		t.Fatalf("want a note that set -e was turned off:\n%v", r)
	}
	b.terms[0].typeKeys("false; echo human-done\r") // the human's next failing command
	// Their keys still in flight would read as a half-typed line.
	b.waitFor("the human's command to run", func() bool { return strings.Contains(b.paneText(), "\nhuman-done") })
	if got := b.run("--", "echo $$; case $- in *e*) echo still-e;; esac"); got != pid {
		t.Fatalf("the shell must survive the human's failing command with errexit off: was %q, now %q", pid, got)
	}
}

func TestTheHumansOwnExitStillClosesTheTerminal(t *testing.T) {
	b := integrated(t)
	b.terms[0].typeKeys("exit\r")
	b.terms[0].exited(t)
	if _, err := b.tmux("has-session", "-t", "="+b.name); err == nil {
		t.Fatal("the session must end with the human's shell, as it would without ptybridge")
	}
}

func TestEndingAShellStartedByTheHumanReturnsToTheirShell(t *testing.T) {
	b := integrated(t)
	outer := b.run("--", "echo $$")
	b.terms[0].typeKeys("exec bash --norc -i\r") // same pid, but not integrated
	b.terms[0].typeKeys("bash --norc -i\r")      // a shell inside the shell
	b.waitFor("the inner shell", func() bool {
		out := b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_current_command}")
		return out == "bash" && strings.Count(b.paneText(), "bash --norc -i") >= 2
	})
	r := b.send("--", "exit")
	if r.code != 125 || !strings.Contains(r.stderr, "back in the user's previous shell") {
		t.Fatalf("want a message that the user's previous shell is back:\n%v", r)
	}
	if got := b.run("--", "echo $$"); got != outer {
		t.Fatalf("want the outer shell %q back, got %q", outer, got)
	}
}

func TestKeysTypedAheadDuringACommandAreNotTypedOver(t *testing.T) {
	expectTypeAheadKept(t, integrated(t), "sleep 1")
}

// expectTypeAheadKept runs command (which starts with sleep) while the human types a line and
// does not send it: the next call refuses it as the human's line, and Enter runs it whole.
func expectTypeAheadKept(t *testing.T, b *bridge, command string) {
	t.Helper()
	cmd := b.ptysend(nil, "--", command)
	must(t, cmd.Start())
	b.waitFor("sleep to run", func() bool { return b.paneCommand() == "sleep" })
	b.terms[0].typeKeys("echo typed-ahead") // while the agent's command runs
	b.waitFor("the keys' echo", func() bool { return strings.Contains(b.paneText(), "echo typed-ahead") })
	must(t, cmd.Wait())
	r := b.send("--", "echo agent")
	if r.code != 75 || !strings.Contains(r.stderr, "not pressed Enter") {
		t.Fatalf("the human's typeahead is their line: want a refusal, got:\n%v", r)
	}
	b.terms[0].typeKeys("\r")
	b.waitFor("the human's line to run whole", func() bool { return strings.Contains(b.paneText(), "\ntyped-ahead\n") })
}

func TestATimeoutInterruptsTheCommandWhileTheHumanScrolls(t *testing.T) {
	b := integrated(t)
	cmd := b.ptysend(nil, "--timeout", "1", "--", "echo started; sleep 300")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	must(t, cmd.Start())
	b.waitFor("sleep to run", func() bool { return b.paneCommand() == "sleep" })
	b.terms[0].typeKeys("\x02[") // the human starts scrolling
	b.waitForCopyMode(true)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 124 || stdout.String() != "started\n" {
		t.Fatalf("want exit 124 with the output so far, got %d %q", code, stdout.String())
	}
	if b.paneCommand() == "sleep" {
		t.Fatal("Ctrl-C must reach the command, not the human's copy mode")
	}
	if b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_in_mode}") != "1" {
		t.Fatal("the human's scrolling must be left alone")
	}
}
