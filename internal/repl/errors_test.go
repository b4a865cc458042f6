package repl

import (
	"regexp"
	"testing"
)

// Each preset's error pattern against responses copied from the real REPLs (python 3.11,
// node 20, psql 15, irb 1.4, lua 5.4, sqlite 3.40; ghci's and nix's from their documentation):
// the line its note quotes for an error, and no error for ordinary output, however much it
// looks like one.
func TestErrorPatternsFindTheREPLsReportsOnly(t *testing.T) {
	cases := []struct {
		program, response, report string // report "": no error
	}{
		{"python", "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nZeroDivisionError: division by zero\n", "ZeroDivisionError: division by zero"},
		{"python", "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nKeyboardInterrupt\n", "KeyboardInterrupt"},
		{"python", "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nAssertionError\n", "AssertionError"},
		{"python", "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nE: custom\n", "E: custom"},
		{"python", "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\n" +
			"  File \"/usr/lib/python3.11/json/__init__.py\", line 346, in loads\n    return _default_decoder.decode(s)\n           ^^^^^^^^^^^^^^^^^^^^^^^^^^\n" +
			"json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)\n",
			"json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"},
		{"python", "  File \"<stdin>\", line 1\n    def f(:\n          ^\nSyntaxError: invalid syntax\n", "SyntaxError: invalid syntax"},
		{"python", "  File \"<stdin>\", line 1\n    1\nIndentationError: unexpected indent\n", "IndentationError: unexpected indent"},
		{"python", "printed first\nTraceback (most recent call last):\n  File \"<stdin>\", line 2, in <module>\nZeroDivisionError: division by zero\n", "ZeroDivisionError: division by zero"},
		{"python", "Traceback (most recent call last):\n  File \"<python-input-0>\", line 1, in <module>\n    1/0\n    ~^~\nZeroDivisionError: division by zero\n", "ZeroDivisionError: division by zero"},
		{"python", "  + Exception Group Traceback (most recent call last):\n  |   File \"<stdin>\", line 1, in <module>\n  | ExceptionGroup: eg (1 sub-exception)\n" +
			"  +-+---------------- 1 ----------------\n    | ValueError: 1\n    +------------------------------------\n", "ExceptionGroup: eg (1 sub-exception)"},
		{"python", "ValueError('x')\n", ""},
		{"python", "Traceback (most recent call last):\n", ""},
		{"python", "['Traceback', 1]\n", ""},
		{"python", "x Error: y\nValueError: printed by the program\n", ""},
		{"python", "<stdin>:1: UserWarning: careful\n", ""},
		// A traceback a program prints: its first frame is not the REPL's input.
		{"python", "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nZeroDivisionError: division by zero\nCompletedProcess(args=['python3', '-c', '1/0'], returncode=1)\n", ""},
		{"python", "Traceback (most recent call last):\n  File \"/srv/app.py\", line 9, in handler\nKeyError: 'id'\n", ""},

		{"node", "Uncaught Error: x\n", "Uncaught Error: x"},
		{"node", "Uncaught ReferenceError: nosuch is not defined\n", "Uncaught ReferenceError: nosuch is not defined"},
		{"node", "Uncaught TypeError: aw\n    at REPL9:1:54\n", "Uncaught TypeError: aw"},
		{"node", "Promise.reject(new Error(\"async\"))\n       ^\n\nUncaught SyntaxError: Unexpected token '.'\n", "Uncaught SyntaxError: Unexpected token '.'"},
		{"node", "Uncaught 42\n", "Uncaught 42"},
		{"node", "Uncaught MyErr [Error]: mine\n", "Uncaught MyErr [Error]: mine"},
		{"node", "Error: y\n    at REPL2:1:1\n    at ContextifyScript.runInThisContext (node:vm:137:12)\n", ""},
		{"node", "[\n  Error: in list\n      at REPL17:1:2\n]\n", ""},
		{"node", "RangeError: r\n    at REPL16:1:9\n", ""},
		{"node", "no Error: here\nundefined\n", ""},
		{"node", "'Uncaught'\n", ""},

		{"psql", "ERROR:  syntax error at or near \"selec\"\nLINE 1: selec 1;\n        ^\n", "ERROR:  syntax error at or near \"selec\""},
		{"psql", "ERROR:  boom\nHINT:  try\nCONTEXT:  PL/pgSQL function inline_code_block line 1 at RAISE\n", "ERROR:  boom"},
		{"psql", "invalid command \\nosuch\nTry \\? for help.\n", "invalid command \\nosuch"},
		{"psql", "connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: FATAL:  database \"nosuchdb\" does not exist\nPrevious connection kept\n",
			"connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: FATAL:  database \"nosuchdb\" does not exist"},
		{"psql", "      x       \n--------------\n ERROR:  fake\n(1 row)\n", ""},
		{"psql", "NOTICE:  hi\nDO\n", ""},
		{"psql", "WARNING:  w\nDO\n", ""},

		{"irb", "(irb):1:in `/': divided by 0 (ZeroDivisionError)\n        from (irb):1:in `<main>'\n", "(irb):1:in `/': divided by 0 (ZeroDivisionError)"},
		{"irb", "(irb):8:in `<main>': ArgumentError (ArgumentError)\n", "(irb):8:in `<main>': ArgumentError (ArgumentError)"},
		{"irb", "/usr/lib/ruby/3.1.0/irb/workspace.rb:119:in `eval': (irb):11: syntax error, unexpected ']', expecting ')' (SyntaxError)\nfoo(]\n    ^\n",
			"/usr/lib/ruby/3.1.0/irb/workspace.rb:119:in `eval': (irb):11: syntax error, unexpected ']', expecting ')' (SyntaxError)"},
		{"irb", "(irb):12:in `g': two (IOError)\nlines\n        from (irb):12:in `<main>'\n", "(irb):12:in `g': two (IOError)"},
		{"irb", "(irb):1:in 'Integer#/': divided by 0 (ZeroDivisionError)\n", "(irb):1:in 'Integer#/': divided by 0 (ZeroDivisionError)"},
		{"irb", "(irb):1: syntax errors found (SyntaxError)\n", "(irb):1: syntax errors found (SyntaxError)"},
		{"irb", "=> #<StandardError: x>\n", ""},
		{"irb", "(irb):1:in fake\n=> nil\n", ""},
		{"irb", "careful\n=> nil\n", ""},

		{"lua", "stdin:1: attempt to index a nil value (global 'x')\nstack traceback:\n        stdin:1: in main chunk\n        [C]: in ?\n", "stdin:1: attempt to index a nil value (global 'x')"},
		{"lua", "(error object is a table value)\nstack traceback:\n        [C]: in function 'error'\n", "(error object is a table value)"},
		{"lua", "msg\nstack traceback:\n        [C]: in function 'error'\n", "msg"},
		{"lua", "stdin:1: unexpected symbol near '1'\n", "stdin:1: unexpected symbol near '1'"},
		{"lua", "stdin:1: fake\n", ""},
		{"lua", "2\n", ""},
		{"lua", "oops\nfile (0x7f63cfc57680)\n", ""},

		{"sqlite3", "Parse error: near \"selec\": syntax error\n  selec 1;\n  ^--- error here\n", "Parse error: near \"selec\": syntax error"},
		{"sqlite3", "Runtime error: UNIQUE constraint failed: t.a (19)\n", "Runtime error: UNIQUE constraint failed: t.a (19)"},
		{"sqlite3", "Error: unknown command or invalid arguments:  \"nosuchcmd\". Enter \".help\" for help\n", "Error: unknown command or invalid arguments:  \"nosuchcmd\". Enter \".help\" for help"},
		{"sqlite3", "Error: near line 1: no such table: t\n", "Error: near line 1: no such table: t"},
		{"sqlite3", "1|a\n", ""},
		{"sqlite3", "┌───────┐\n│ Error │\n├───────┤\n│ x     │\n└───────┘\n", ""},

		{"ghci", "<interactive>:1:1: error: [GHC-88464]\n    Variable not in scope: foo\n", "<interactive>:1:1: error: [GHC-88464]"},
		{"ghci", "<interactive>:3:1-4: error:\n    • Variable not in scope: fooo\n", "<interactive>:3:1-4: error:"},
		{"ghci", "*** Exception: divide by zero\n", "*** Exception: divide by zero"},
		{"ghci", "<interactive>:1:1: warning: [-Wtype-defaults]\n", ""},
		{"ghci", "\"*** Exception: quoted\"\n", ""},

		{"nix repl", "error: undefined variable 'foo'\n\n       at «string»:1:1:\n", "error: undefined variable 'foo'"},
		{"nix repl", "\"error: a string\"\n", ""},
		{"nix repl", "trace: error: traced\n1\n", ""},

		{"fake", "Traceback (most recent call last):\n  File \"<stdin>\", line 1, in <module>\nZeroDivisionError: division by zero\n", ""},
	}
	for _, c := range cases {
		report, ok := errorReport(c.program, c.response)
		if report != c.report || ok != (c.report != "") {
			t.Errorf("%s: in %q: got %q (%v), want %q", c.program, c.response, report, ok, c.report)
		}
	}
}

// Every preset has an error pattern, and it compiles.
func TestEveryPresetHasAnErrorPattern(t *testing.T) {
	for program, p := range replPresets {
		if _, err := regexp.Compile(p.Error); p.Error == "" || err != nil {
			t.Errorf("the preset %s has no error pattern that compiles: %v", program, err)
		}
	}
}
