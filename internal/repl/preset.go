package repl

import (
	"path/filepath"
	"strings"
)

// preset is what ptysend knows of a well-known REPL, so that --repl-start needs no --prompt
// for it: Prompt matches the cursor line when the REPL waits for a new input, Continuation when
// it waits for the rest of one, and Error the REPL's own report of an evaluation that raised an
// error, in the response's clean text (errors.go says how it is used).
type preset struct{ Prompt, Continuation, Error string }

// replPresets are the presets by program name (replProgram). An Error pattern matches only
// what the REPL prints when it reports an error, never a value it shows (python's
// ValueError('x'), node's Error object with its stack) nor a warning. Those checked against the
// real REPL say so; the others follow the REPL's documented format.
var replPresets = map[string]preset{
	// python3, python, python3.12...; pdb inside it has its own prompt. An error is a traceback
	// whose first frame is the REPL's input ("<stdin>"; "<python-input-N>" since 3.13), or a
	// SyntaxError's frame alone, then the exception's line; an ExceptionGroup's is drawn in a
	// frame of "|". A traceback a program prints (traceback.print_exc, a subprocess's) names
	// other files. Checked against python 3.11.
	"python": {Prompt: `^>>> `, Continuation: `^\.\.\. `,
		Error: `(?m)^(?:Traceback \(most recent call last\):\n)?  File "<(?:stdin|python-input-\d+)>", line \d+.*\n(?:[ \t].*\n)*([A-Za-z_][\w.]*(?::.*)?)$` +
			`|^  \+ Exception Group Traceback \(most recent call last\):\n(?:  \|.*\n)*?  \| ([A-Za-z_][\w.]*(?::.*)?)$`},
	// An error thrown by the evaluation is "Uncaught ..." (node 12 and later); an Error object
	// as a value shows as "Error: x" with its stack. Checked against node 20.
	"node": {Prompt: `^> `, Continuation: `^\.\.\. `, Error: `(?m)^Uncaught .*$`},
	// psql: PROMPT1 is %/%R%x%# ("db=> ", "db=# " for a superuser,
	// "db=*> " inside a transaction); PROMPT2 has '-', '(', a quote... for %R.
	// The server's errors are "ERROR:  " (two spaces; in English lc_messages), psql's own
	// "invalid command \x" and a failed \connect. Checked against psql 15.
	"psql": {Prompt: `^[^\s]*[=!^@][*!?]?[#>] `, Continuation: `^[^\s]*[-'"($*][*!?]?[#>] `,
		Error: `(?m)^(?:ERROR|FATAL|PANIC):  .*$|^invalid command \\.*$|^connection to server .* failed: .*$`},
	// irb: "irb(main):001:0> " (older) or "irb(main):001> "; "*" or a
	// quote instead of ">" while a statement is open.
	// An exception is "LOCATION:in `METHOD': MESSAGE (Class)" ('METHOD' since ruby 3.4), a
	// syntax error since ruby 3.4 "(irb):1: syntax errors found (SyntaxError)". Checked against
	// irb 1.4 (ruby 3.1).
	"irb": {Prompt: `^irb\([^)]*\):\d+(:\d+)?> `, Continuation: "^irb\\([^)]*\\):\\d+(:\\d+)?[*'\"/\\]}`] ",
		Error: "(?m)^.*:in [`'].*\\([A-Z]\\w*(?:::[A-Z]\\w*)*\\)$|^\\(irb\\):\\d+: .*\\(SyntaxError\\)$"},
	// nix repl: "error: ..." (a string value is shown quoted). From the documented format: no
	// nix to check it against where this was written.
	"nix repl": {Prompt: `^nix-repl> `, Error: `(?m)^error: .*$`},
	// ghci: "ghci> " since 9.0; "Prelude> " or "*Main Data.List> " before.
	// Errors: "<interactive>:1:1: error: [GHC-88464]" (the code since 9.6), and an exception
	// "*** Exception: ...". From the documented format: no ghci to check it against where
	// this was written.
	"ghci": {Prompt: `^(ghci|\*?[A-Z][\w.]*( \*?[A-Z][\w.]*)*)> `, Continuation: `^(ghci|\*?[A-Z][\w.]*( \*?[A-Z][\w.]*)*)\| `,
		Error: `(?m)^<interactive>:[\d:(),-]+: error\b.*$|^\*\*\* Exception: .*$`},
	// lua: a runtime error is its message, then "stack traceback:" and the frames; a syntax
	// error "stdin:1: ... near TOKEN". Checked against lua 5.4.
	"lua": {Prompt: `^> `, Continuation: `^>> `, Error: `(?m)^(.+)\nstack traceback:\n[ \t]|^stdin:\d+: .* near .+$`},
	// sqlite3: "Parse error: ..." and "Runtime error: ..." (recent versions), "Error: ..." (dot
	// commands, and older versions' errors). A selected value is printed as it is, so a value that
	// starts a line with one of these is taken for one. Checked against sqlite 3.40.
	"sqlite3": {Prompt: `^sqlite> `, Continuation: `^ *\.\.\.> `, Error: `(?m)^(?:Parse error|Runtime error|Error)(?: near line \d+)?: .*$`},
}

// replProgram names the REPL a command line starts: the basename of its
// first word, after variable assignments and "env", without a version
// suffix (python3.12, lua5.4); "nix repl" is two words.
func replProgram(command string) string {
	words := strings.Fields(command)
	for len(words) > 0 && (strings.Contains(words[0], "=") || words[0] == "env" || words[0] == "command") {
		words = words[1:]
	}
	if len(words) == 0 {
		return ""
	}
	name := filepath.Base(words[0])
	if name == "nix" && len(words) > 1 && words[1] == "repl" {
		return "nix repl"
	}
	switch base := strings.TrimRight(name, "0123456789."); base {
	case "python", "lua", "node", "ghci", "irb":
		return base
	}
	return name
}
