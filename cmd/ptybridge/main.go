// Command ptybridge opens the shared terminal: it creates or joins the
// user's bridge session in tmux, which lives while a terminal is attached.
package main

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/call"
	"github.com/ptybridge/ptybridge/internal/cli"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/remote/attach"
	"github.com/ptybridge/ptybridge/internal/rundir"
	"golang.org/x/term"
)

const description = `Open the terminal you share with your AI agent.

Run it in a terminal and keep the terminal open: it is an ordinary shell
(in tmux) in which the agent runs commands with ptysend. You see every
command the agent runs and can answer its prompts (sudo passwords, ssh,
confirmations). Several terminals may run ptybridge at once; closing the
last one ends the shared shell (--linger keeps it alive for a while).

With a COMMAND after --, the shared terminal runs it instead of your shell,
so the agent works where it takes you: another host, user or container.
  ptybridge --session web1 -- ssh web1
  ptybridge --session pg -- sudo -iu postgres
  ptybridge --session box -- docker exec -it box bash
When COMMAND ends, the terminal says with which exit status, and the
session ends as when the last terminal closes. ptysend --sessions lists
the bridges; the agent picks one with ptysend --session NAME.

With --host [USER@]HOST the shared terminal is a ptybridge on HOST, over
one ssh connection of yours (your config, keys and agent; its questions in
this terminal): a ptybridge of this version on the host's PATH is used,
else ptybridge and ptysend are copied to ~/.cache/ptybridge there,
checksum-verified, and the session lingers when the connection drops
(24h, or --linger); ptybridge --host HOST again returns to it. The agent
reaches it with ptysend --session NAME (NAME defaults to HOST's), and the
MCP tools with session NAME.
  ptybridge --host deploy@web1

With --confirm you approve each command of the agent's before it is typed:
a small window over your terminal shows it; press y to run it, n or Escape
to refuse it (the agent is told you refused). It stays on for as long as the
shared terminal lives, whichever ptybridge terminals join it; the agent
cannot turn it off.`

type flags struct {
	Session string           `env:"PTYBRIDGE_SESSION" placeholder:"NAME" help:"Bridge session to open (default ptybridge-<user>)."`
	Version kong.VersionFlag `help:"Print the version and exit."`
	Command []string         `arg:"" optional:"" passthrough:"" placeholder:"-- COMMAND" help:"Run COMMAND in the shared terminal instead of your shell (ssh HOST, sudo -i, docker exec -it C bash)."`
	Confirm bool             `help:"Approve each command of the agent's (and each REPL input) before it is typed: y runs it, n or Escape refuses it."`
	Linger  cli.Duration     `placeholder:"DURATION" help:"Keep the shared shell alive this long after the last terminal closes, its state intact (e.g. 30m); ptybridge again finds it as it was. Meanwhile ptysend refuses (75): nobody watches."`
	Host    string           `placeholder:"[USER@]HOST" help:"Open the shared terminal on HOST, in a ptybridge there, over one ssh connection of yours (using a ptybridge of this version on the host's PATH, else copying ptybridge and ptysend to ~/.cache/ptybridge there); it lingers when the connection drops (--linger, default 24h), and ptybridge --host HOST again returns to it. The session's name defaults to HOST's. See docs/remote.md."`

	cli.RelayFlags `embed:""`
}

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	var c flags
	parser := kong.Must(&c, kong.Name("ptybridge"), kong.Description(description), kong.Vars{"version": cli.Version()})
	if _, err := parser.Parse(args); err != nil {
		fmt.Fprintf(os.Stderr, "ptybridge: error: %s\nhint: see ptybridge --help\n", err)
		return 2
	}
	var err error
	switch {
	case c.RelayFlags.Requested():
		err = c.RelayFlags.Run()
	case c.Host != "" && len(c.Command) > 0:
		err = &failure.Error{Msg: "--host runs ptybridge on the host: it takes no COMMAND", Hint: "drop the COMMAND, or use ptybridge -- ssh HOST COMMAND"}
	case !term.IsTerminal(int(os.Stdin.Fd())):
		err = &failure.Error{
			Msg:  "standard input is not a terminal: ptybridge opens an interactive terminal for a human",
			Hint: "run ptybridge yourself in a terminal window; an agent should ask the user to do it",
		}
	case c.Host != "":
		err = attach.Open(attach.Options{Dest: c.Host, Name: c.Session, Linger: c.Linger.Duration(), Confirm: c.Confirm})
	default:
		err = open(c)
	}
	if err != nil {
		cli.Report(os.Stderr, "ptybridge", err)
		return 1
	}
	return 0
}

func open(c flags) error {
	name := cmp.Or(c.Session, bridge.DefaultName())
	if err := bridge.ValidateName(name); err != nil {
		return err
	}
	command := cli.Words(c.Command)
	dir := rundir.Path()
	if err := rundir.Ensure(dir); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	width, height, err := term.GetSize(int(os.Stdin.Fd()))
	if err != nil || width <= 0 || height <= 0 {
		width, height = 80, 24
	}
	cwd, err := os.Getwd()
	if err != nil {
		cwd = "/"
	}
	br := bridge.Bridge{Name: name, RuntimeDir: dir, Exe: exe}
	if len(command) > 0 && br.Exists() {
		fmt.Fprintf(os.Stderr, "ptybridge: the bridge %s runs already: joining it (%s is not started again)\n",
			name, strings.Join(command, " "))
		command = nil
	}
	since := time.Now().UnixNano()
	opened, stopWatch := br.EndIfAbandoned()
	defer stopWatch()
	created, err := br.Open(width, height, bridge.LoginShell(), cwd, command...)
	opened(created)
	if err != nil {
		return err
	}
	if created && len(command) == 0 {
		// Errors leave the shell as a shell the user started inside the bridge is: the first
		// call finds it without hooks, and reads the screen.
		call.SetUpShell(context.Background(), br)
	}
	if c.Confirm {
		if err := br.RequireConfirm(); err != nil {
			return err
		}
	}
	if c.Linger > 0 {
		if err := br.Linger(c.Linger.Duration()); err != nil {
			return err
		}
	}
	stopWatch()
	if len(command) == 0 {
		return br.Attach()
	}
	err = br.AttachAndWait()
	if msg := br.CommandEnded(command, since); msg != "" {
		fmt.Fprintln(os.Stderr, msg)
	}
	return err
}
