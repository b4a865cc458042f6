package e2e

import (
	"strings"
	"testing"
)

// An evaluation whose response is the REPL's report of an error (its preset's error pattern)
// prints that response as any other, says so on stderr and exits 1; a value that merely looks
// like an error, and a REPL with no preset, exit 0.

func expectEvalError(t *testing.T, b *bridge, expr, output, report string) {
	t.Helper()
	r := b.send("--repl-eval", expr)
	expectCode(t, r, 1)
	if !strings.Contains(r.stdout, output) {
		t.Errorf("%q: the response lacks %q:\n%v", expr, output, r)
	}
	expectStderr(t, r, "ptysend: note: the evaluation raised an error ("+report+")")
}

func TestAPythonExceptionIsMarked(t *testing.T) {
	needProgram(t, "python3")
	b := startBridge(t)
	b.run("--repl-start", "python3")
	expectEvalError(t, b, "1/0", "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n",
		"python: ZeroDivisionError: division by zero")
	expectEvalError(t, b, "def f(:", "SyntaxError: invalid syntax", "python: SyntaxError: invalid syntax")
	if r := b.send("--repl-eval", "1+1"); r.code != 0 || r.stdout != "2\n" || r.stderr != "" {
		t.Fatalf("an evaluation after an error:\n%v", r)
	}
	for expr, want := range map[string]string{
		`ValueError("x")`: "ValueError('x')\n",
		`print("Traceback (most recent call last):"); ["Traceback", 1]`:                              "Traceback (most recent call last):\n['Traceback', 1]\n",
		"try:\n    1/0\nexcept ZeroDivisionError as e:\n    print(type(e).__name__ + ': ' + str(e))": "ZeroDivisionError: division by zero\n",
	} {
		if got := b.eval(expr); got != want {
			t.Errorf("%q: got %q, want %q", expr, got, want)
		}
	}
	b.closeREPL()
}

func TestANodeExceptionIsMarked(t *testing.T) {
	needProgram(t, "node")
	b := startBridge(t)
	b.run("--repl-start", "node")
	expectEvalError(t, b, `throw new Error("x")`, "Uncaught Error: x", "node: Uncaught Error: x")
	if got := b.eval(`new Error("y").message`); got != "'y'\n" {
		t.Fatalf("got %q", got)
	}
	if got := b.eval(`String(new RangeError("r"))`); got != "'RangeError: r'\n" {
		t.Fatalf("got %q", got)
	}
	b.closeREPL()
}

// A REPL of no preset, started with --prompt, has no error pattern (python through a shell's
// exec is such a one: ptysend names it after "sh"); python's own, with --prompt, keeps its.
func TestAREPLWithoutAPresetHasNoErrorMark(t *testing.T) {
	needProgram(t, "python3")
	b := startBridge(t)
	b.run("--repl-start", "sh -c 'exec python3 -q'", "--prompt", "^>>> ", "--continuation", `^\.\.\. `)
	r := b.send("--repl-eval", "1/0")
	if r.code != 0 || !strings.Contains(r.stdout, "ZeroDivisionError") || strings.Contains(r.stderr, "raised an error") {
		t.Fatalf("want the traceback, exit 0 and no note:\n%v", r)
	}
	b.closeREPL()
	b.run("--repl-start", "python3", "--prompt", "^>>> ")
	expectEvalError(t, b, "1/0", "ZeroDivisionError", "python: ZeroDivisionError: division by zero")
	b.closeREPL()
}
