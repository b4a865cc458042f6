package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// needProgram fails (never skips) when a REPL the suite tests against is
// missing: CI installs them (.ci/run).
func needProgram(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Fatalf("%s is required for the REPL tests and is not on PATH (apt-get install %s)", name, map[string]string{"node": "nodejs"}[name]+strings.TrimPrefix(name, "node"))
	}
}

// startFake starts the fake REPL in the shared terminal.
func (b *bridge) startFake(extra ...string) result {
	b.t.Helper()
	args := append([]string{"--repl-start", fakeREPLCommand(), "--prompt", fakePrompt, "--continuation", fakeContinuing}, extra...)
	r := b.send(args...)
	if r.code != 0 {
		b.t.Fatalf("starting the fake REPL failed:\n%v", r)
	}
	return r
}

// eval is --repl-eval for evaluations that must succeed; it returns stdout.
func (b *bridge) eval(expr string) string {
	b.t.Helper()
	r := b.send("--repl-eval", expr)
	if r.code != 0 {
		b.t.Fatalf("--repl-eval %q failed:\n%v\npane:\n%s", expr, r, b.paneText())
	}
	return r.stdout
}

// replPID is the pid of the REPL in the state file.
func (b *bridge) replPID() int {
	b.t.Helper()
	fg := b.foregroundPID()
	if fg == 0 {
		b.t.Fatal("no process in the foreground of the pane")
	}
	return fg
}

// foregroundPID is the foreground process group of the pane's terminal.
func (b *bridge) foregroundPID() int {
	pid := b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_pid}")
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	fg, _ := strconv.Atoi(fields[5])
	return fg
}

func expectStderr(t *testing.T, r result, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%v", want, r)
		}
	}
}

func TestPythonREPLStartEvalClose(t *testing.T) {
	needProgram(t, "python3")
	b := startBridge(t)
	r := b.send("--repl-start", "python3")
	if r.code != 0 || !strings.Contains(r.stdout, "Python 3") || strings.Contains(r.stdout, ">>>") {
		t.Fatalf("want the banner without the prompt, exit 0:\n%v", r)
	}
	if got := b.eval("1 + 1"); got != "2\n" {
		t.Fatalf("1 + 1: got %q", got)
	}
	// State lives between calls; a def sent as one multi-line EXPR, with
	// a TAB, defines the function.
	b.eval("x = 20")
	if got := b.eval("def twice(n):\n\treturn n * 2"); got != "" {
		t.Fatalf("def: got %q", got)
	}
	if got := b.eval("print(twice(x + 1))\nprint('second')"); got != "42\nsecond\n" {
		t.Fatalf("got %q", got)
	}
	if got := b.eval("import sys; print('to stderr', file=sys.stderr)"); got != "to stderr\n" {
		t.Fatalf("the REPL's stderr is on the terminal, got %q", got)
	}
	if r := b.send("--repl-close"); r.code != 0 {
		t.Fatalf("close:\n%v", r)
	}
	if got := b.run("--", "echo shell is back"); got != "shell is back\n" {
		t.Fatalf("got %q", got)
	}
	if _, err := os.Stat(filepath.Join(b.runtimeDir(), b.name+".repl.json")); !os.IsNotExist(err) {
		t.Fatalf("the REPL state must be gone after close: %v", err)
	}
}

func TestFakeREPLCases(t *testing.T) {
	b := startBridge(t)
	r := b.startFake()
	if r.stdout != "fake REPL 1.0\n" {
		t.Fatalf("start must print what came before the prompt: %q", r.stdout)
	}
	cases := []struct{ name, expr, want string }{
		{"plain", "echo hello", "hello\n"},
		{"prompt-shaped output while working", "lookalike", "fake> done\n"},
		{"output without a final newline", "say no newline", "no newline"},
		{"slow output", "ticks 3", "tick 1\ntick 2\ntick 3\n"},
		{"continuation prompts", "block\none\ntwo", "block of 2 lines\n"},
	}
	for _, c := range cases {
		if got := b.eval(c.expr); got != c.want {
			t.Errorf("%s: want %q, got %q", c.name, c.want, got)
		}
	}
}
