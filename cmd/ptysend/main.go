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

Exit status: the command's own; 124 when --timeout or --max-time fired
(Ctrl-C is sent, then Ctrl-\ 3 s later; the output so far is printed);
125 when ptysend itself failed (no bridge, bad flags, busy terminal).

Examples:
  ptysend -- ls -la
  ptysend -- 'cd /srv && make test'
  ptysend --timeout 60 -- sudo apt-get update
  echo data | ptysend -- wc -c`

type cli struct {
	Session string           `env:"PTYBRIDGE_SESSION" placeholder:"NAME" help:"Bridge session to use (default ptybridge-<user>)."`
	Timeout session.Duration `default:"10s" placeholder:"DURATION" help:"Interrupt the command after this long without output (seconds, or 90s, 2m; 0 = never)."`
	MaxTime session.Duration `default:"120s" placeholder:"DURATION" help:"Interrupt the command after this long in all (0 = never)."`
	Version kong.VersionFlag `help:"Print the version and exit."`

	Words []string `arg:"" optional:"" passthrough:"" help:"Shell code to run in the shared terminal."`

	Relay     string `hidden:"" help:"Internal: serve the pane's output stream on this socket."`
	RelayPane string `hidden:""`
	RelayPID  int    `hidden:""`
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
	if c.Relay != "" {
		if err := session.RunRelay(c.Relay, c.RelayPane, c.RelayPID, os.Stdin); err != nil {
			return session.Report(os.Stderr, "ptysend", err)
		}
		return 0
	}
	words := c.Words
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
	name := c.Session
	if name == "" {
		name = session.DefaultSessionName()
	}
	if err := session.ValidateName(name); err != nil {
		return session.Report(os.Stderr, "ptysend", err)
	}
	exe, _ := os.Executable()
	status, err := session.Send(session.Request{
		Bridge:  session.Bridge{Name: name, RuntimeDir: session.RuntimeDirPath(), Exe: exe},
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
