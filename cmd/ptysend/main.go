// Command ptysend runs a command in the shared terminal opened by
// ptybridge, as if the human had typed it, and behaves like an ordinary
// command wrapper: the command's stdout, stderr and exit status become its
// own.
package main

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/ptybridge/ptybridge/internal/session"
)

var version = "dev"

const description = `Run a command in the shared terminal that the user opened with ptybridge.

The WORDS are joined with spaces and run as shell code by the shell in the
shared terminal, exactly as if the user had typed them (like "ssh host
WORDS..."): cd, exported variables and functions persist between calls.
Quote what the shell must not expand: ptysend -- 'echo $HOME'.

The command's stdout becomes ptysend's stdout, its stderr ptysend's stderr,
and its exit status ptysend's exit status. Standard input is forwarded to
the command unless it is a terminal; then the command reads the shared
terminal, where the user can answer (sudo and ssh prompts read it anyway).

Shells: the WORDS are code for the shell that runs in the shared terminal,
whichever the user started there: bash, zsh, sh (dash) or fish. Write them
in its syntax:
  ptysend -- 'export MODE=dev; for f in *.go; do wc -l "$f"; done'   # bash, zsh, sh
  ptysend -- 'set -x MODE dev; for f in *.go; wc -l $f; end'         # fish
Other shells (tcsh, nu, pwsh...) are refused with exit 125.

The terminal is the user's: ptysend types nothing while the user runs
something, has a half-typed line or scrolls back; it exits 125 and the
"hint:" line says what to ask the user. A command waiting for the user (a
password prompt) is not killed by --timeout; ptysend says what it asks.

Exit status: the command's own; 124 when --timeout or --max-time fired
(Ctrl-C is sent, then Ctrl-\ 3 s later; the output so far is printed);
125 when ptysend itself failed (no bridge, bad flags, busy terminal).

REPLs (python3, node, psql...) run in the shared terminal too, where the user
sees every evaluation:
  --repl-start CMD   runs CMD and returns once its prompt shows (the output so
                     far is printed); --prompt REGEX says what the prompt looks
                     like (the line the cursor is on), for programs without a
                     preset (presets: python3/python, node, psql, irb, nix repl,
                     ghci, lua, sqlite3)
  --repl-eval EXPR   types EXPR (one or several lines) into it and prints the
                     response, without the echoed input and prompts; exit 0,
                     124 on a timeout (the evaluation gets Ctrl-C, the REPL stays
                     usable), 125 when the REPL died
  --repl-close       leaves it (Ctrl-D, then SIGTERM, SIGKILL) and returns when
                     the shell is back; closing when none is open is harmless
While a REPL runs, "ptysend -- CMD" is refused: close the REPL first.

Examples:
  ptysend -- ls -la
  ptysend -- 'cd /srv && make test'
  ptysend --timeout 60 -- sudo apt-get update
  echo data | ptysend -- wc -c
  ptysend --repl-start python3 && ptysend --repl-eval '1 + 1' && ptysend --repl-close`

type cli struct {
	Session string           `env:"PTYBRIDGE_SESSION" placeholder:"NAME" help:"Bridge session to use (default ptybridge-<user>)."`
	Timeout session.Duration `default:"10s" placeholder:"DURATION" help:"Interrupt the command after this long without output (seconds, or 90s, 2m; 0 = never)."`
	MaxTime session.Duration `default:"120s" placeholder:"DURATION" help:"Interrupt the command after this long in all (0 = never)."`
	Version kong.VersionFlag `help:"Print the version and exit."`

	REPLStart    string  `name:"repl-start" placeholder:"CMD" help:"Start the REPL CMD in the shared terminal; returns when its prompt shows."`
	Prompt       string  `placeholder:"REGEX" help:"With --repl-start: the REPL's prompt, matched against the cursor line (overrides the preset)."`
	Continuation string  `placeholder:"REGEX" help:"With --prompt: the REPL's continuation prompt (python's '... '), if it has one."`
	REPLEval     *string `name:"repl-eval" placeholder:"EXPR" help:"Evaluate EXPR in the running REPL and print its response (--repl-eval=EXPR when EXPR starts with '-')."`
	REPLClose    bool    `name:"repl-close" help:"Leave the running REPL; harmless when none runs."`

	Words []string `arg:"" optional:"" passthrough:"" help:"Shell code to run in the shared terminal."`

	session.RelayFlags `embed:""`
}

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	var c cli
	parser, err := kong.New(&c,
		kong.Name("ptysend"),
		kong.Description(description),
		kong.Vars{"version": version},
		kong.Exit(func(code int) {
			if code != 0 {
				code = session.ExitFailure
			}
			os.Exit(code)
		}))
	if err != nil {
		panic(err)
	}
	if _, err := parser.Parse(args); err != nil {
		return usageError(err.Error())
	}
	if c.RelayFlags.Requested() {
		if err := c.RelayFlags.Run(); err != nil {
			return session.Report(os.Stderr, "ptysend", err)
		}
		return 0
	}
	words := c.Words
	if repl, code := replMode(c); repl {
		return code
	}
	if len(words) > 0 && words[0] == "--" {
		words = words[1:]
	} else if len(words) > 0 && strings.HasPrefix(words[0], "-") {
		// The words pass through unparsed from the first one on, so an
		// unknown flag lands here.
		return usageError("unknown flag " + words[0] + " (to run a command that starts with '-', put it after --)")
	}
	if len(words) == 0 {
		return usageError("no command given")
	}
	bridge, err := bridgeFor(c)
	if err != nil {
		return session.Report(os.Stderr, "ptysend", err)
	}
	status, err := session.Send(session.Request{
		Bridge:  bridge,
		Command: strings.Join(words, " "),
		Timeout: time.Duration(c.Timeout),
		MaxTime: time.Duration(c.MaxTime),
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
	})
	if err != nil {
		return session.Report(os.Stderr, "ptysend", err)
	}
	return status
}

func usageError(msg string) int {
	fmt.Fprintf(os.Stderr, "ptysend: error: %s\nhint: usage: ptysend [flags] -- WORDS...; see ptysend --help\n", msg)
	return session.ExitFailure
}

func bridgeFor(c cli) (session.Bridge, error) {
	name := c.Session
	if name == "" {
		name = session.DefaultSessionName()
	}
	exe, _ := os.Executable()
	return session.Bridge{Name: name, RuntimeDir: session.RuntimeDirPath(), Exe: exe}, session.ValidateName(name)
}

// replMode runs --repl-start, --repl-eval or --repl-close; repl is false
// when none was given.
func replMode(c cli) (repl bool, code int) {
	modes := 0
	for _, set := range []bool{c.REPLStart != "", c.REPLEval != nil, c.REPLClose} {
		if set {
			modes++
		}
	}
	switch {
	case modes == 0 && (c.Prompt != "" || c.Continuation != ""):
		return true, usageError("--prompt and --continuation go with --repl-start")
	case modes == 0:
		return false, 0
	case modes > 1 || len(c.Words) > 0:
		return true, usageError("use one of --repl-start, --repl-eval, --repl-close, or -- WORDS, not several")
	case (c.Prompt != "" || c.Continuation != "") && c.REPLStart == "":
		return true, usageError("--prompt and --continuation go with --repl-start")
	case c.Continuation != "" && c.Prompt == "":
		return true, usageError("--continuation needs --prompt")
	case c.REPLEval != nil && strings.TrimSpace(*c.REPLEval) == "":
		return true, usageError("--repl-eval needs an expression")
	}
	bridge, err := bridgeFor(c)
	if err != nil {
		return true, session.Report(os.Stderr, "ptysend", err)
	}
	req := session.REPLRequest{
		Bridge:  bridge,
		Timeout: time.Duration(c.Timeout), MaxTime: time.Duration(c.MaxTime),
		Stdout: os.Stdout, Stderr: os.Stderr,
		Prompt: c.Prompt, Continuation: c.Continuation,
	}
	var status int
	switch {
	case c.REPLStart != "":
		status, err = session.REPLStart(req, c.REPLStart)
	case c.REPLEval != nil:
		status, err = session.REPLEval(req, *c.REPLEval)
	default:
		status, err = session.REPLClose(req)
	}
	if err != nil {
		return true, session.Report(os.Stderr, "ptysend", err)
	}
	return true, status
}
