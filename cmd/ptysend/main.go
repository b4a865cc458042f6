// Command ptysend runs a command in the shared terminal opened by
// ptybridge, as if the human had typed it, and behaves like an ordinary
// command wrapper: the command's stdout, stderr and exit status become its
// own.
package main

import (
	"fmt"
	"os"

	"github.com/alecthomas/kong"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/cli"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/rundir"
)

const description = `Run a command in the shared terminal that the user opened with ptybridge.

The WORDS are joined with spaces and run as shell code by the shell in the
shared terminal, exactly as if the user had typed them (like "ssh host
WORDS..."): cd, exported variables and functions persist between calls.
Quote what the shell must not expand: ptysend -- 'echo $HOME'.

The command's stdout becomes ptysend's stdout as clean text (as a pipe would
have carried it: no colour codes, \n line endings, progress-bar redraws
collapsed to their last state; --raw for the exact bytes the terminal got),
its stderr ptysend's stderr, and its exit status ptysend's exit status.
Standard input is forwarded to the command unless it is a terminal; then
the command reads the shared terminal, where the user can answer (sudo and
ssh prompts read it anyway).

Shells: the WORDS are code for the shell that runs in the shared terminal,
whichever the user started there: bash, zsh, sh (dash) or fish. Write them
in its syntax:
  ptysend -- 'export MODE=dev; for f in *.go; do wc -l "$f"; done'   # bash, zsh, sh
  ptysend -- 'set -x MODE dev; for f in *.go; wc -l $f; end'         # fish
Other shells (tcsh, nu, pwsh...) are refused with exit 125.

Concurrent calls run one at a time; a call that has to wait says on stderr
which call holds the terminal, and since when.

The terminal is the user's: ptysend types nothing while the user runs
something, has a half-typed line or scrolls back; it exits 125 and the
"hint:" line says what to ask the user. A command waiting for the user (a
password prompt) is not killed by --timeout; ptysend says what it asks.

Timeouts: a command that prints nothing, on stdout or stderr, for 10s
(--timeout) is interrupted, and so is any command after 120s in all
(--max-time). A quiet build or test needs more: --timeout 60.

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
                     usable), 125 when the REPL died, or waits for input on a
                     line that is not its prompt (input(): the user answers)
  --repl-close       leaves it (Ctrl-D, then SIGTERM, SIGKILL) and returns when
                     the shell is back; closing when none is open is harmless
While a REPL runs, "ptysend -- CMD" is refused: close the REPL first.

Where commands run: in whatever shell the shared terminal reaches. After the
user types "ssh web1", "su - deploy", "sudo -i" or "docker exec -it box bash"
there, ptysend drives the shell at the far end through the terminal itself
(bash, zsh, fish or sh; nothing is installed there): same contract, and a note
on stderr the first time. --sessions lists the user's bridges (one per host,
opened with "ptybridge --session NAME -- ssh HOST"), with user@host and shell,
free or busy; pick one with --session NAME.

Examples:
  ptysend -- ls -la
  ptysend -- 'cd /srv && make test'
  ptysend --timeout 60 -- sudo apt-get update
  echo data | ptysend -- wc -c
  ptysend --repl-start python3 && ptysend --repl-eval '1 + 1' && ptysend --repl-close`

// flags are ptysend's command line: the options every mode shares, then
// the modes (modes.go), of which one runs.
type flags struct {
	Session string           `env:"PTYBRIDGE_SESSION" placeholder:"NAME" help:"Bridge session to use (default ptybridge-<user>)."`
	Timeout cli.Duration     `default:"10s" placeholder:"DURATION" help:"Interrupt the command after this long without output; output on stderr counts too (default ${default}; seconds, or 90s, 2m; 0 = never). Give a quiet build or test more, e.g. --timeout 60."`
	MaxTime cli.Duration     `default:"120s" placeholder:"DURATION" help:"Interrupt the command after this long in all (default ${default}; 0 = never)."`
	Raw     bool             `help:"Print the command's terminal output byte for byte (colours, \\r\\n line endings, progress-bar redraws) instead of clean text."`
	Version kong.VersionFlag `help:"Print the version and exit."`

	REPLStart replStart `embed:""`
	REPLEval  replEval  `embed:""`
	REPLClose replClose `embed:""`
	Sessions  sessions  `embed:""`
	Command   command   `embed:""`

	cli.RelayFlags `embed:""`
}

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	var f flags
	parser, err := kong.New(&f,
		kong.Name("ptysend"),
		kong.Description(description),
		kong.Vars{"version": cli.Version()},
		kong.Exit(func(code int) {
			if code != 0 {
				code = failure.ExitFailure
			}
			os.Exit(code)
		}))
	if err != nil {
		panic(err)
	}
	if _, err := parser.Parse(args); err != nil {
		return usageError(err.Error())
	}
	if f.RelayFlags.Requested() {
		if err := f.RelayFlags.Run(); err != nil {
			return cli.Report(os.Stderr, "ptysend", err)
		}
		return 0
	}
	m, err := f.mode()
	if err != nil {
		return usageError(err.Error())
	}
	b, err := f.bridge()
	if err != nil {
		return cli.Report(os.Stderr, "ptysend", err)
	}
	b.Call = m.typed()
	status, err := m.Run(f.call(b))
	if err != nil {
		return cli.Report(os.Stderr, "ptysend", err)
	}
	return status
}

func usageError(msg string) int {
	fmt.Fprintf(os.Stderr, "ptysend: error: %s\nhint: usage: ptysend [flags] -- WORDS...; see ptysend --help\n", msg)
	return failure.ExitFailure
}

func (f *flags) bridge() (bridge.Bridge, error) {
	name := f.Session
	if name == "" {
		name = bridge.DefaultName()
	}
	exe, _ := os.Executable()
	return bridge.Bridge{Name: name, RuntimeDir: rundir.Path(), Exe: exe}, bridge.ValidateName(name)
}
