package e2e

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Refusals: whatever the human is in the middle of, a call that would
// type into it is refused with exit 75, and nothing at all is typed. Each
// way of typing (a mode) meets each thing the human can be doing (a
// state), on a bridge of its own; each case proves nothing was typed
// twice over: what the mode would have done did not happen, and the
// human carries on from where they were as if the agent had never called.

// typingMode is one way ptysend types into a terminal. prepare readies
// the bridge for it (starts the REPL or the job it types into) and
// returns the call, and did, which says what the call would have done
// had it typed ("" while nothing of it happened).
type typingMode struct {
	name    string
	prepare func(b *bridge) (args []string, did func() string)
}

// humanState is something the human (or a window) is in the middle of.
// enter puts them in it and returns once it shows; resume checks the
// state is as the human left it, then has them carry on and checks that
// what they get is theirs alone.
type humanState struct {
	name   string
	shell  string // the human's shell; bash when empty
	fresh  bool   // no ptysend call in the shell before the state: no hooks
	enter  func(b *bridge)
	resume func(c *refusalCase)
}

// markFile is the file that the agent's code would create, had it run.
func markFile(b *bridge) string { return filepath.Join(b.dir, "MARK") }

// created says that path exists, when it does.
func created(path string) func() string {
	return func() string {
		if _, err := os.Stat(path); err == nil {
			return "the agent's code ran: " + path + " was created"
		}
		return ""
	}
}

// Modes that type into the shared shell.
var shellModes = []typingMode{
	{"ptysend -- touch MARK", func(b *bridge) ([]string, func() string) {
		return []string{"--", "touch " + markFile(b)}, created(markFile(b))
	}},
	{"ptysend --repl-start python3", func(b *bridge) ([]string, func() string) {
		// python creates the file as it starts, then waits at its prompt.
		start := fmt.Sprintf(`python3 -i -c 'open("%s", "w").close()'`, markFile(b))
		return []string{"--repl-start", start}, created(markFile(b))
	}},
}

// startPython has the agent start python in the shared terminal and
// returns its pid.
func startPython(b *bridge) int {
	b.t.Helper()
	needProgram(b.t, "python3")
	b.run("--repl-start", "python3")
	return b.replPID()
}

// alive says whether pid is a process that has not ended.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

var (
	replEval = typingMode{`ptysend --repl-eval 'open("MARK","w")'`, func(b *bridge) ([]string, func() string) {
		startPython(b)
		return []string{"--repl-eval", fmt.Sprintf(`open("%s", "w")`, markFile(b))}, created(markFile(b))
	}}
	replClose = typingMode{"ptysend --repl-close", func(b *bridge) ([]string, func() string) {
		pid := startPython(b)
		return []string{"--repl-close"}, func() string {
			if !alive(pid) {
				return fmt.Sprintf("the REPL (pid %d) was ended", pid)
			}
			return ""
		}
	}}
)

// feedJob is the job the job modes type into: it prints each line it
// reads as got:[LINE], and nothing else (no echo).
const feedJob = "feed"

func startFeedJob(b *bridge) {
	b.t.Helper()
	b.run("--job", feedJob, "--", `stty -echo; echo ready; while IFS= read -r l; do echo "got:[$l]"; done`)
	expectCode(b.t, b.send("--job-wait", feedJob, "--until", "^ready$"), 0)
}

// jobGot says that the feed job read text, when it did.
func jobGot(b *bridge, text string) func() string {
	return func() string {
		if out := b.run("--job-output", feedJob); strings.Contains(out, "got:["+text) {
			return fmt.Sprintf("the job read the agent's text: its output is %q", out)
		}
		return ""
	}
}

var jobModes = []typingMode{
	{"ptysend --job-send feed -- agent-text", func(b *bridge) ([]string, func() string) {
		startFeedJob(b)
		return []string{"--job-send", feedJob, "--", "agent-text"}, jobGot(b, "agent-text")
	}},
	{"ptysend --job-keys feed -- x Enter", func(b *bridge) ([]string, func() string) {
		startFeedJob(b)
		return []string{"--job-keys", feedJob, "--", "x", "Enter"}, jobGot(b, "x")
	}},
}

// refusalCase is one (mode, state) case under way.
type refusalCase struct {
	t     *testing.T
	b     *bridge
	human *terminal
	did   func() string
	// telltales counts, before the call, the text that shows on the pane
	// when the agent's keys reached something of the human's.
	telltales map[string]int
}

// telltaleTexts show when keys went where they should not: the agent's
// command line, and the complaints of the shells and of python about a
// line spliced with the agent's text.
var telltaleTexts = []string{"[agent]", "command not found", "Unknown command", ": not found", "Error:", "Permission denied"}

func (c *refusalCase) countTelltales() map[string]int {
	pane := c.b.paneText()
	n := map[string]int{}
	for _, s := range telltaleTexts {
		n[s] = strings.Count(pane, s)
	}
	return n
}

// typed says what shows that the agent typed, "" when nothing does.
func (c *refusalCase) typed() string {
	if what := c.did(); what != "" {
		return what
	}
	now := c.countTelltales()
	for _, s := range telltaleTexts {
		if now[s] > c.telltales[s] {
			return fmt.Sprintf("%q showed on the pane", s)
		}
	}
	return ""
}

// await waits for what the human should get, failing at once when the
// pane shows that the agent's keys were typed after all.
func (c *refusalCase) await(what string, ok func() bool) {
	c.t.Helper()
	c.b.waitFor(what, func() bool {
		if typed := c.typed(); typed != "" {
			c.t.Fatalf("waiting for %s: %s; the pane shows:\n%s", what, typed, c.b.paneText())
		}
		return ok()
	})
}

// awaitLine waits for a line of the pane in which find finds something,
// and returns what it found.
func (c *refusalCase) awaitLine(what string, find func(line string) string) string {
	c.t.Helper()
	var found string
	c.await(what, func() bool {
		for _, l := range c.b.paneLines() {
			if found = find(l); found != "" {
				return true
			}
		}
		return false
	})
	return found
}

// echoedX finds the output of the human's echo "<$x>" at the end of a
// line: the shell's next prompt may come before it when the human typed
// the echo ahead, while read still ran (dash). The line of the echo
// command itself, whose closing quote may not show yet, is no output.
func echoedX(line string) string {
	if strings.Contains(line, `echo "<`) {
		return ""
	}
	return echoedXOutput.FindString(line)
}

var echoedXOutput = regexp.MustCompile(`<[^<>]*>$`)

// paneShows waits for text on the shared pane.
func (c *refusalCase) paneShows(text string) {
	c.t.Helper()
	c.await(fmt.Sprintf("the pane to show %q", text), func() bool { return strings.Contains(c.b.paneText(), text) })
}

// inCopyMode is tmux's own flag for a pane (a tmux target).
func (b *bridge) inCopyMode(target string) bool {
	out, _ := b.tmux("display-message", "-p", "-t", target, "#{pane_in_mode}")
	return strings.TrimSpace(out) == "1"
}

// onAlternateScreen: a full-screen program has the shared pane.
func (b *bridge) onAlternateScreen() bool {
	out, _ := b.tmux("display-message", "-p", "-t", "="+b.name+":", "#{alternate_on}")
	return strings.TrimSpace(out) == "1"
}

// cursorX is the cursor's column in the shared pane.
func (b *bridge) cursorX() int {
	x, _ := strconv.Atoi(b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{cursor_x}"))
	return x
}

// waitForPrompt waits until the shared pane shows a prompt with the
// cursor after it: the shell's ("# ", "$ ", "% ", "> ") or python's.
func (b *bridge) waitForPrompt() {
	b.t.Helper()
	b.waitFor("a prompt", func() bool {
		line := strings.TrimRight(b.cursorLine(), " ")
		return b.cursorX() > 0 && line != "" && strings.ContainsAny(line[len(line)-1:], "#$%>")
	})
}

// The human's states at the shell prompt.

var halfTypedLine = humanState{
	name: "a half-typed line",
	enter: func(b *bridge) {
		b.terms[0].typeKeys("echo human-was-")
		b.waitFor("the human's keys to show", func() bool { return strings.Contains(b.cursorLine(), "echo human-was-") })
	},
	resume: func(c *refusalCase) {
		c.human.typeKeys("here\r")
		if got := c.awaitLine("the human's line to run", regexp.MustCompile(`^human-was-.*`).FindString); got != "human-was-here" {
			c.t.Fatalf("the human's line must run exactly as they typed it: it printed %q", got)
		}
	},
}

// humanBack has the human run a command of their own at their prompt.
func humanBack(c *refusalCase) {
	c.t.Helper()
	c.human.typeKeys("echo human-back\r")
	c.paneShows("\nhuman-back\n")
}

var copyModeAtThePrompt = humanState{
	name: "copy mode",
	enter: func(b *bridge) {
		b.terms[0].typeKeys("\x02[") // the prefix, then [
		b.waitForCopyMode(true)
	},
	resume: func(c *refusalCase) {
		if !c.b.inCopyMode("=" + c.b.name + ":") {
			c.t.Fatal("the human's copy mode was left")
		}
		c.human.typeKeys("q")
		c.b.waitForCopyMode(false)
		humanBack(c)
	},
}

var aRunningProgram = humanState{
	name: "a running program (sleep)",
	enter: func(b *bridge) {
		b.terms[0].typeKeys("sleep 1000\r")
		b.waitFor("the human's sleep to run", func() bool { return b.foreground() == "sleep" })
	},
	resume: func(c *refusalCase) {
		if c.b.foreground() != "sleep" {
			c.t.Fatal("the human's sleep no longer runs")
		}
		// Ended by a signal (as from another terminal of the human's), not
		// by Ctrl-C, whose flush of the terminal's input would hide keys
		// typed ahead into it.
		must(c.t, syscall.Kill(c.b.foregroundPID(), syscall.SIGTERM))
		humanBack(c)
	},
}

var aFullScreenProgram = humanState{
	name: "a full-screen program (less)",
	enter: func(b *bridge) {
		b.terms[0].typeKeys("less " + b.lessFile() + "\r")
		b.waitFor("less on the alternate screen", func() bool { return b.foreground() == "less" && b.onAlternateScreen() })
		b.waitFor("less to show the file", func() bool { return strings.HasPrefix(b.paneText(), "line-of-the-file-1\n") })
	},
	resume: func(c *refusalCase) {
		expectLessUntouched(c)
		c.human.typeKeys("q")
		c.b.waitFor("less to end", func() bool { return c.b.foreground() != "less" })
		humanBack(c)
	},
}

// expectLessUntouched: less still runs and shows the file from its top,
// as the human left it (keys typed into it would have scrolled it).
func expectLessUntouched(c *refusalCase) {
	c.t.Helper()
	if c.b.foreground() != "less" || !c.b.onAlternateScreen() {
		c.t.Fatalf("less no longer runs; the pane shows:\n%s", c.b.paneText())
	}
	if pane := c.b.paneText(); !strings.HasPrefix(pane, "line-of-the-file-1\n") {
		c.t.Fatalf("less must show the file as the human left it:\n%s", pane)
	}
}

// builtinRead: the human's shell runs its builtin read, which looks idle
// from outside; fresh: the shell never had a ptysend call before.
func builtinRead(shell string, fresh bool) humanState {
	name := "a builtin read in " + shell
	if fresh {
		name += " that never had a ptysend call"
	}
	return humanState{
		name: name, shell: shell, fresh: fresh,
		enter: func(b *bridge) {
			b.terms[0].typeKeys("read x\r")
			if shell == "fish" {
				// fish's read runs fish's own line editor, with its prompt.
				// (capture-pane drops the prompt's trailing blank.)
				b.waitFor("fish's read prompt", func() bool { return strings.HasPrefix(b.cursorLine(), "read>") })
				return
			}
			// The line is echoed, the cursor is at the start of the next
			// one, and the shell sleeps reading the terminal.
			b.waitFor("the shell to read", func() bool {
				_, wchan := b.shellState()
				return strings.Contains(b.paneText(), "read x") && b.cursorX() == 0 &&
					strings.TrimSpace(b.cursorLine()) == "" && wchan == "wait_woken"
			})
		},
		resume: func(c *refusalCase) {
			c.human.typeKeys("human-answer\r")
			c.human.typeKeys(`echo "<$x>"` + "\r")
			if got := c.awaitLine("the human's echo of what read got", echoedX); got != "<human-answer>" {
				c.t.Fatalf("read must receive exactly what the human typed: echo \"<$x>\" printed %q", got)
			}
		},
	}
}

// viCommandMode: the human's line editor in vi mode, Esc pressed at an
// empty prompt. Keys typed now are vi commands: bash ran the agent's
// line as ". '/path'" less its dot, and "/" would search the history.
func viCommandMode(shell string) humanState {
	return humanState{
		name: "vi command mode in " + shell, shell: shell,
		enter: func(b *bridge) {
			enterViCommandMode(b, shell)
		},
		resume: func(c *refusalCase) {
			c.human.typeKeys("i")
			humanBack(c)
		},
	}
}

// viModeOn is what turns a shell's line editor to vi mode.
var viModeOn = map[string]string{"bash": "set -o vi", "zsh": "bindkey -v", "fish": "fish_vi_key_bindings"}

// enterViCommandMode has the human turn vi mode on and press Esc at the
// next prompt, and waits for --status to tell.
func enterViCommandMode(b *bridge, shell string) {
	b.t.Helper()
	b.terms[0].typeKeys(viModeOn[shell] + "\r")
	b.waitForState("idle")
	b.terms[0].typeKeys("\x1b")
	b.waitForState("vi_command_mode")
}

var shellStates = []humanState{
	halfTypedLine,
	copyModeAtThePrompt,
	aRunningProgram,
	builtinRead("bash", false),
	builtinRead("bash", true),
	builtinRead("zsh", false),
	builtinRead("fish", false),
	builtinRead("dash", false),
	aFullScreenProgram,
	viCommandMode("bash"),
	viCommandMode("zsh"),
	viCommandMode("fish"),
}

// The human's states in the REPL that the agent started.

// humanEvaluates has the human evaluate 40 + 2 at the REPL's prompt.
func humanEvaluates(c *refusalCase) {
	c.t.Helper()
	c.human.typeKeys("40 + 2\r")
	c.paneShows("\n42\n")
}

var replHalfTypedLine = humanState{
	name: "a half-typed line at the REPL prompt",
	enter: func(b *bridge) {
		b.terms[0].typeKeys("1 + ")
		b.waitFor("the human's keys to show", func() bool { return strings.TrimRight(b.cursorLine(), " ") == ">>> 1 +" })
	},
	resume: func(c *refusalCase) {
		c.human.typeKeys("2\r")
		c.paneShows(">>> 1 + 2\n3\n")
	},
}

var replCopyMode = humanState{
	name: "copy mode over the REPL",
	enter: func(b *bridge) {
		b.terms[0].typeKeys("\x02[")
		b.waitForCopyMode(true)
	},
	resume: func(c *refusalCase) {
		if !c.b.inCopyMode("=" + c.b.name + ":") {
			c.t.Fatal("the human's copy mode was left")
		}
		c.human.typeKeys("q")
		c.b.waitForCopyMode(false)
		humanEvaluates(c)
	},
}

// sleepsInKernel: pid sleeps in a nanosleep (python's time.sleep).
func sleepsInKernel(pid int) bool {
	wchan, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/wchan")
	return strings.Contains(string(wchan), "nanosleep")
}

var replBusyWithTheHumansEvaluation = humanState{
	name: "the REPL busy with the human's evaluation",
	enter: func(b *bridge) {
		b.terms[0].typeKeys("import time; time.sleep(1000)\r")
		b.waitFor("python to sleep", func() bool { return sleepsInKernel(b.replPID()) })
	},
	resume: func(c *refusalCase) {
		pid := c.b.replPID()
		if !sleepsInKernel(pid) {
			c.t.Fatal("the human's evaluation no longer runs")
		}
		// SIGINT from outside, not Ctrl-C, whose flush of the terminal's
		// input would hide keys typed ahead into it.
		must(c.t, syscall.Kill(pid, syscall.SIGINT))
		c.paneShows("KeyboardInterrupt")
		humanEvaluates(c)
	},
}

var replFullScreenProgram = humanState{
	name: "a full-screen program started from the REPL",
	enter: func(b *bridge) {
		// less runs in python's process group (os.system has no job
		// control): the terminal's foreground is still python's.
		b.terms[0].typeKeys(`import os; os.system("less ` + b.lessFile() + `")` + "\r")
		b.waitFor("less to show the file on the alternate screen", func() bool {
			return b.onAlternateScreen() && strings.HasPrefix(b.paneText(), "line-of-the-file-1\n")
		})
	},
	resume: func(c *refusalCase) {
		if !c.b.onAlternateScreen() || !strings.HasPrefix(c.b.paneText(), "line-of-the-file-1\n") || !alive(c.b.replPID()) {
			c.t.Fatalf("less must show the file as the human left it, over python; the pane shows:\n%s", c.b.paneText())
		}
		c.human.typeKeys("q")
		c.await("python's prompt after less", func() bool {
			return !c.b.onAlternateScreen() && strings.TrimSpace(c.b.cursorLine()) == ">>>"
		})
		humanEvaluates(c)
	},
}

// The job's window in copy mode (tmux copy-mode -t on the job's pane).

var jobWindowInCopyMode = humanState{
	name: "copy mode in the job's window",
	enter: func(b *bridge) {
		b.mustTmux("copy-mode", "-t", b.jobPane(feedJob))
		b.waitFor("copy mode in the job's window", func() bool { return b.inCopyMode(b.jobPane(feedJob)) })
	},
	resume: func(c *refusalCase) {
		b := c.b
		if !b.inCopyMode(b.jobPane(feedJob)) {
			c.t.Fatal("copy mode in the job's window was left")
		}
		b.mustTmux("send-keys", "-t", b.jobPane(feedJob), "-X", "cancel")
		b.waitFor("copy mode to end", func() bool { return !b.inCopyMode(b.jobPane(feedJob)) })
		b.run("--job-send", feedJob, "--", "after")
		expectCode(c.t, b.send("--job-wait", feedJob, "--until", `^got:\[after\]$`), 0)
		if got := b.run("--job-output", feedJob); got != "ready\ngot:[after]\n" {
			c.t.Fatalf("the job must have read only the later line, whole: its output is %q", got)
		}
	},
}

func TestTypingIntoSomethingOfTheHumansIsRefusedWithNothingTyped(t *testing.T) {
	type pair struct {
		mode  typingMode
		state humanState
	}
	var pairs []pair
	for _, m := range shellModes {
		for _, s := range shellStates {
			pairs = append(pairs, pair{m, s})
		}
	}
	for _, s := range []humanState{replHalfTypedLine, replCopyMode, replBusyWithTheHumansEvaluation, replFullScreenProgram} {
		pairs = append(pairs, pair{replEval, s})
	}
	for _, s := range []humanState{replHalfTypedLine, replCopyMode, replFullScreenProgram} {
		pairs = append(pairs, pair{replClose, s})
	}
	for _, m := range jobModes {
		pairs = append(pairs, pair{m, jobWindowInCopyMode})
	}
	for _, p := range pairs {
		t.Run(p.mode.name+" while "+p.state.name, func(t *testing.T) {
			t.Parallel()
			shell := p.state.shell
			if shell == "" {
				shell = "bash"
			}
			b := startShellBridge(t, shellByName(t, shell))
			if !p.state.fresh {
				b.run("--", "true") // installs the shell's hooks
			}
			args, did := p.mode.prepare(b)
			c := &refusalCase{t: t, b: b, human: b.terms[0], did: did}
			c.telltales = c.countTelltales()
			// The human starts from a prompt drawn (keys typed ahead while
			// the last call ends are another matter).
			b.waitForPrompt()
			p.state.enter(b)

			r := b.send(args...)
			expectRefusal(t, r)
			if typed := c.typed(); typed != "" {
				t.Errorf("nothing may be typed, but %s", typed)
			}
			p.state.resume(c)
			if typed := c.typed(); typed != "" {
				t.Errorf("nothing may be typed, but once the human carried on, %s; the pane shows:\n%s", typed, b.paneText())
			}
		})
	}
}

// refusal is ptysend's answer when it types nothing: an error and a hint.
var refusal = regexp.MustCompile(`(?m)^ptysend: error: .+\nhint: .+`)

func expectRefusal(t *testing.T, r result) {
	t.Helper()
	if r.code != 75 || !refusal.MatchString(r.stderr) {
		t.Errorf("want exit 75 with \"ptysend: error: ...\" and a \"hint: ...\" line; got:\n%v", r)
	}
}

// The probes of the test above must see what each mode does when it
// does type: on a free terminal, each one does.
func TestEachTypingModeLeavesItsMarkOnAFreeTerminal(t *testing.T) {
	modes := append(append(append([]typingMode(nil), shellModes...), replEval, replClose), jobModes...)
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			b := startBridge(t)
			args, did := m.prepare(b)
			if what := did(); what != "" {
				t.Fatalf("before the call: %s", what)
			}
			if r := b.send(args...); r.code != 0 {
				t.Fatalf("on a free terminal the call must succeed:\n%v\npane:\n%s", r, b.paneText())
			}
			b.waitFor("the mode's mark", func() bool { return did() != "" })
		})
	}
}
