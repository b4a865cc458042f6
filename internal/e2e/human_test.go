package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Seeing the human's terminal, talking to them and waiting for them:
// --screen, --notify, --wait-free and ptybridge --confirm.

// lessFile writes a file of numbered lines for the human to read in less.
func (b *bridge) lessFile() string {
	b.t.Helper()
	var text strings.Builder
	for i := 1; i <= 200; i++ {
		fmt.Fprintf(&text, "line-of-the-file-%d\n", i)
	}
	path := filepath.Join(b.dir, "notes.txt")
	must(b.t, os.WriteFile(path, []byte(text.String()), 0o600))
	return path
}

// background is a ptysend call left running while the human acts.
type background struct {
	cmd            *exec.Cmd
	stdout, stderr *lockedBuffer
	done           chan struct{}
}

func (b *bridge) sendInBackground(args ...string) *background {
	b.t.Helper()
	bg := &background{cmd: b.ptysend(nil, args...), stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, done: make(chan struct{})}
	bg.cmd.Stdout, bg.cmd.Stderr = bg.stdout, bg.stderr
	must(b.t, bg.cmd.Start())
	go func() {
		bg.cmd.Wait()
		close(bg.done)
	}()
	return bg
}

// wait waits for the call to end and returns what it returned.
func (bg *background) wait() result {
	<-bg.done
	return result{bg.stdout.String(), bg.stderr.String(), bg.cmd.ProcessState.ExitCode()}
}

// running reports whether the call has not ended yet.
func (bg *background) running() bool {
	select {
	case <-bg.done:
		return false
	default:
		return true
	}
}

func TestTheAgentSeesLessAndWaitsForTheHumanToQuit(t *testing.T) {
	b := integrated(t)
	human := b.terms[0]
	human.typeKeys("less " + b.lessFile() + "\r")
	b.waitFor("less to show the file", func() bool {
		return b.paneCommand() == "less" && strings.Contains(b.paneText(), "line-of-the-file-1\n")
	})

	r := b.send("--screen")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "line-of-the-file-1\nline-of-the-file-2\n") ||
		!strings.Contains(r.stderr, "ptysend: cursor at row 39, column") || !strings.Contains(r.stderr, "(of 120 x 39)") ||
		!strings.Contains(r.stderr, "alternate screen") {
		t.Fatalf("--screen must show less's text and the cursor on its last row:\n%v", r)
	}

	r = b.send("--", "true")
	if r.code != 75 || !strings.Contains(r.stderr, `"less"`) || !strings.Contains(r.stderr, "hint: ask the user") {
		t.Fatalf("want exit 75 naming less:\n%v", r)
	}

	call := b.sendInBackground("--wait-free", "30s", "--", "echo ran-after-less")
	b.waitFor("ptysend to say what it waits for", func() bool {
		return strings.Contains(call.stderr.String(), "ptysend: waiting up to 30s (--wait-free) for the shared terminal to be free:")
	})
	if !strings.Contains(call.stderr.String(), `"less" is running`) || !call.running() {
		t.Fatalf("it waits for less, in the refusal's words: %q", call.stderr.String())
	}
	if strings.Contains(b.paneText(), "ran-after-less") {
		t.Fatalf("nothing may be typed while less runs:\n%s", b.paneText())
	}
	human.typeKeys("q")
	r = call.wait()
	if r.code != 0 || r.stdout != "ran-after-less\n" || strings.Count(r.stderr, "waiting up to") != 1 {
		t.Fatalf("want the command run once less has quit, with one notice:\n%v", r)
	}
}

func TestWaitFreeGivesUpWithTheRefusal(t *testing.T) {
	b := integrated(t)
	b.terms[0].typeKeys("sleep 300\r")
	b.waitFor("the human's sleep to run", func() bool { return b.paneCommand() == "sleep" })
	r := b.send("--wait-free", "1", "--", "echo never")
	if r.code != 75 || !strings.Contains(r.stderr, "ptysend: waiting up to 1s (--wait-free)") ||
		!strings.Contains(r.stderr, `ptysend: error: the shared terminal is busy: "sleep" is running`) ||
		!strings.Contains(r.stderr, "still so after waiting 1s") || !strings.Contains(r.stderr, "hint: ") {
		t.Fatalf("want exit 75 with the refusal once the wait is over:\n%v", r)
	}
	if strings.Contains(b.paneText(), "echo never") {
		t.Fatalf("nothing may be typed:\n%s", b.paneText())
	}
}

func TestWaitFreeWaitsForAHalfTypedLine(t *testing.T) {
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			b.run("--", "true") // installs the hooks
			// The human types at their prompt: dash reads a line in the
			// terminal's canonical mode, where a partial line typed ahead of
			// its prompt shows nowhere (not in the input queue's count).
			b.waitFor("the prompt", func() bool {
				return b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{cursor_x}") != "0"
			})
			human := b.terms[0]
			human.typeKeys("echo half-")
			b.waitFor("the human's keys to show", func() bool { return strings.Contains(b.paneText(), "echo half-") })
			if r := b.send("--", "echo agent"); r.code != 75 || !strings.Contains(r.stderr, "not pressed Enter") {
				t.Fatalf("want exit 75 for the half-typed line:\n%v", r)
			}
			call := b.sendInBackground("--wait-free", "30s", "--", "echo agent-after-the-human")
			b.waitFor("ptysend to say what it waits for", func() bool { return strings.Contains(call.stderr.String(), "not pressed Enter") })
			human.typeKeys("typed-by-the-human\r")
			r := call.wait()
			if r.code != 0 || r.stdout != "agent-after-the-human\n" {
				t.Fatalf("want the command run after the human's line:\n%v", r)
			}
			if !strings.Contains(b.paneText(), "\nhalf-typed-by-the-human\n") {
				t.Fatalf("the human's line must run intact:\n%s", b.paneText())
			}
		})
	}
}

func TestWaitFreeWaitsForCopyMode(t *testing.T) {
	b := integrated(t)
	human := b.terms[0]
	human.typeKeys("\x02[") // the prefix, then [: the human scrolls back
	b.waitForCopyMode(true)
	call := b.sendInBackground("--wait-free", "30s", "--", "echo after-scrolling")
	b.waitFor("ptysend to say what it waits for", func() bool { return strings.Contains(call.stderr.String(), "copy mode") })
	human.typeKeys("q")
	if r := call.wait(); r.code != 0 || r.stdout != "after-scrolling\n" {
		t.Fatalf("want the command run once copy mode ended:\n%v", r)
	}
}

func TestWaitFreeWaitsForTheHumansLineAtTheREPLPrompt(t *testing.T) {
	needProgram(t, "python3")
	b := startBridge(t)
	b.run("--repl-start", "python3")
	b.terms[0].typeKeys("abc")
	b.waitFor("the user's keys at the prompt", func() bool { return strings.Contains(b.paneText(), ">>> abc") })
	call := b.sendInBackground("--wait-free", "30s", "--repl-eval", "6 * 7")
	b.waitFor("ptysend to say what it waits for", func() bool { return strings.Contains(call.stderr.String(), "the user is typing") })
	b.terms[0].typeKeys("\x15") // Ctrl-U: the user clears their line
	if r := call.wait(); r.code != 0 || r.stdout != "42\n" {
		t.Fatalf("want the evaluation once the line is clear:\n%v", r)
	}
	b.closeREPL()
}

func TestScreenShowsAHalfTypedLineAsJSON(t *testing.T) {
	b := integrated(t)
	b.terms[0].typeKeys("echo 'two  spaces'")
	b.waitFor("the human's keys to show", func() bool { return strings.Contains(b.paneText(), "echo 'two  spaces'") })
	r := b.send("--screen", "--json")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("--screen --json:\n%v", r)
	}
	var s struct {
		Rows            []string `json:"rows"`
		CursorRow       int      `json:"cursor_row"`
		CursorCol       int      `json:"cursor_col"`
		Width           int      `json:"width"`
		Height          int      `json:"height"`
		AlternateScreen bool     `json:"alternate_screen"`
		CopyMode        bool     `json:"copy_mode"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatalf("not one JSON object: %v\n%s", err, r.stdout)
	}
	if s.Width != 120 || s.Height != 39 || len(s.Rows) != s.Height || s.AlternateScreen || s.CopyMode {
		t.Fatalf("want the 120 x 39 pane, its 39 rows, no alternate screen, no copy mode: %+v", s)
	}
	line := s.Rows[s.CursorRow-1]
	if !strings.HasSuffix(line, "echo 'two  spaces'") || s.CursorCol != len([]rune(line))+1 {
		t.Fatalf("the cursor must be just after the half-typed line; row %d col %d is in %q", s.CursorRow, s.CursorCol, line)
	}
	if r := b.send("--json", "--", "true"); r.code != 125 || !strings.Contains(r.stderr, "--json goes with --screen") {
		t.Fatalf("--json with a command:\n%v", r)
	}
	if r := b.send("--wait-free", "5", "--screen"); r.code != 125 || !strings.Contains(r.stderr, "--wait-free goes with") {
		t.Fatalf("--wait-free with --screen:\n%v", r)
	}
}

func TestScreenAndNotifyWithoutABridge(t *testing.T) {
	b := newWorld(t)
	for _, args := range [][]string{{"--screen"}, {"--notify", "hello"}} {
		if r := b.send(args...); r.code != 125 || !strings.Contains(r.stderr, "No PTY bridge session is running") {
			t.Errorf("ptysend %q without a bridge:\n%v", args, r)
		}
	}
}

func TestNotifyShowsTheMessageWithoutTypingIt(t *testing.T) {
	b := integrated(t)
	human := b.terms[0]
	human.typeKeys("less " + b.lessFile() + "\r")
	b.waitFor("less to run", func() bool { return b.paneCommand() == "less" })
	before := len(human.screen())
	r := b.send("--notify", "please quit less #1, I want to run the tests;")
	if r.code != 0 || !strings.Contains(r.stderr, "shown to the user in 1 terminal") {
		t.Fatalf("--notify:\n%v", r)
	}
	b.waitFor("the message on the human's screen", func() bool {
		return strings.Contains(human.screen()[before:], "[agent] please quit less #1, I want to run the tests;")
	})
	// ptysend rings the bell after tmux shows the message: the two reach
	// the human's terminal in either order.
	b.waitFor("the human's terminal to ring its bell", func() bool {
		return strings.Contains(human.screen()[before:], "\a")
	})
	if b.paneCommand() != "less" || strings.Contains(b.paneText(), "please quit") {
		t.Fatalf("nothing may be typed into less:\n%s", b.paneText())
	}
	// The agent can see that the message shows: --screen --json says what the message line holds.
	var screen struct {
		StatusMessage string `json:"status_message"`
	}
	must(t, json.Unmarshal([]byte(b.run("--screen", "--json")), &screen))
	if screen.StatusMessage != "[agent] please quit less #1, I want to run the tests;" {
		t.Fatalf("--screen --json's status_message: %q", screen.StatusMessage)
	}
	if r := b.send("--notify", "  "); r.code != 125 || !strings.Contains(r.stderr, "--notify needs a message") {
		t.Fatalf("an empty message:\n%v", r)
	}
}

// confirmBridge opens the shared terminal with ptybridge --confirm.
func confirmBridge(t *testing.T) *bridge {
	t.Helper()
	b := newWorld(t)
	b.openTerminal("--confirm")
	b.waitReady()
	return b
}

// answer waits for the question about what to show on the human's screen
// and presses key there.
func (b *bridge) answer(call *background, what, key string, since int) {
	b.t.Helper()
	human := b.terms[0]
	b.waitFor("the question on the human's screen", func() bool {
		shown := human.screen()[since:]
		return strings.Contains(shown, "The agent wants to") && strings.Contains(shown, what) && strings.Contains(shown, "n or Esc = refuse")
	})
	if !call.running() {
		b.t.Fatal("ptysend must wait for the answer")
	}
	human.typeKeys(key)
}

func TestConfirmTheHumanApprovesOrRefusesEachCommand(t *testing.T) {
	b := confirmBridge(t)
	human := b.terms[0]

	call := b.sendInBackground("--", "echo approved-by-the-human")
	b.answer(call, "echo approved-by-the-human", "y", 0)
	if r := call.wait(); r.code != 0 || r.stdout != "approved-by-the-human\n" {
		t.Fatalf("y runs it:\n%v", r)
	}

	for _, c := range []struct{ name, key string }{{"n", "n"}, {"Escape", "\x1b"}} {
		side := filepath.Join(b.dir, "side-effect-"+c.name)
		before := len(human.screen())
		call := b.sendInBackground("--", "touch "+side)
		b.answer(call, "touch "+side, c.key, before)
		r := call.wait()
		if r.code != 77 || !strings.Contains(r.stderr, "ptysend: error: the user refused to run it: ") ||
			!strings.Contains(r.stderr, "touch "+side) || !strings.Contains(r.stderr, "hint: ask the user why") {
			t.Fatalf("%s refuses it with exit 77:\n%v", c.name, r)
		}
		if _, err := os.Stat(side); !os.IsNotExist(err) {
			t.Fatalf("%s: the refused command ran: %v", c.name, err)
		}
		if strings.Contains(b.paneText(), "touch") {
			t.Fatalf("%s: nothing may reach the shell:\n%s", c.name, b.paneText())
		}
	}
	// The agent has no way around it.
	if r := b.send("--help"); strings.Contains(r.stdout, "--no-confirm") {
		t.Fatal("ptysend must offer no way to turn the confirmation off")
	}
}

func TestConfirmHoldsForAnAgentWithAnotherRuntimeDir(t *testing.T) {
	b := confirmBridge(t)
	// The agent's environment differs from the human's: it reaches the
	// relay the session records, and the setting beside it.
	b.setenv("PTYBRIDGE_RUNTIME_DIR", filepath.Join(b.dir, "agent-rt"))
	side := filepath.Join(b.dir, "side-effect")
	call := b.sendInBackground("--", "touch "+side)
	b.answer(call, "touch "+side, "n", 0)
	if r := call.wait(); r.code != 77 {
		t.Fatalf("want the question and the refusal:\n%v", r)
	}
	if _, err := os.Stat(side); !os.IsNotExist(err) {
		t.Fatalf("the refused command ran: %v", err)
	}
}

func TestConfirmWithNoTerminalToAskInRefuses(t *testing.T) {
	b := confirmBridge(t)
	// A control-mode client keeps the session alive, but shows no popup.
	control := exec.Command("tmux", "-C", "attach-session", "-t", "="+b.name)
	control.Env = b.env
	stdin, err := control.StdinPipe()
	must(t, err)
	must(t, control.Start())
	defer func() {
		stdin.Close() // the control client leaves; never detach-client
		control.Wait()
	}()
	b.waitFor("the control client", func() bool {
		return b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{session_attached}") == "2"
	})
	b.terms[0].close()
	b.waitFor("the human's terminal to be gone", func() bool {
		return b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{session_attached}") == "1"
	})
	r := b.send("--", "echo never")
	if r.code != 125 || !strings.Contains(r.stderr, "no terminal of theirs is attached") || !strings.Contains(r.stderr, "hint: ask the user to open") {
		t.Fatalf("want a clear refusal:\n%v", r)
	}
	if strings.Contains(b.paneText(), "echo never") {
		t.Fatalf("nothing may be typed:\n%s", b.paneText())
	}
}

func TestConfirmAsksForREPLInputsToo(t *testing.T) {
	b := confirmBridge(t)
	human := b.terms[0]
	call := b.sendInBackground("--repl-start", fakeREPLCommand(), "--prompt", fakePrompt)
	b.answer(call, "start this REPL", "y", 0)
	if r := call.wait(); r.code != 0 {
		t.Fatalf("the approved REPL must start:\n%v", r)
	}
	before := len(human.screen())
	call = b.sendInBackground("--repl-eval", "echo refused-input")
	b.answer(call, "echo refused-input", "n", before)
	if r := call.wait(); r.code != 77 || !strings.Contains(r.stderr, "the user refused to run it") {
		t.Fatalf("a refused evaluation exits 77:\n%v", r)
	}
	if strings.Contains(b.paneText(), "refused-input") {
		t.Fatalf("nothing may reach the REPL:\n%s", b.paneText())
	}
	before = len(human.screen())
	call = b.sendInBackground("--repl-eval", "echo approved-input")
	b.answer(call, "evaluate this in the REPL", "y", before)
	if r := call.wait(); r.code != 0 || r.stdout != "approved-input\n" {
		t.Fatalf("an approved evaluation runs:\n%v", r)
	}
	if r := b.send("--repl-close"); r.code != 0 {
		t.Fatalf("closing asks nothing:\n%v", r)
	}
}
