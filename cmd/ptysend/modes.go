package main

import (
	"errors"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/repl"
	"github.com/ptybridge/ptybridge/internal/session"
	"github.com/ptybridge/ptybridge/skills"
)

// A mode is one thing ptysend does: run a command, start a REPL,
// evaluate in it... Each is a struct of its own flags with a Run; every
// mode is listed once, in modes, and exactly one runs per call.
type mode interface {
	// chosen reports whether the command line asks for this mode.
	chosen() bool
	// check refuses flags that do not fit the mode, before anything runs.
	check() error
	// typed is the call as the agent typed it, for the calls that queue
	// behind it ("make test", "--repl-eval 1 + 1").
	typed() string
	Run(c call) (int, error)
}

// call is what every mode gets: the bridge, the limits and the files.
type call struct {
	Bridge           bridge.Bridge
	Timeout, MaxTime time.Duration
	Stdin            *os.File
	Stdout, Stderr   io.Writer
	Raw              bool

	// WaitFree is --wait-free, for the modes that type (waitsForFree);
	// JSON is --json, for those that can print it (printsJSON).
	WaitFree time.Duration
	JSON     bool
}

// waitsForFree is a mode that can wait for the terminal to be free
// (--wait-free) instead of refusing.
type waitsForFree interface{ waitsForFree() }

// printsJSON is a mode that can answer in JSON (--json).
type printsJSON interface{ printsJSON() }

// modes lists every mode; the command, which needs no flag, comes last.
func (f *flags) modes() []mode {
	modes := []mode{&f.REPLStart, &f.REPLEval, &f.REPLClose, &f.Screen, &f.Notify, &f.ConfirmAsk, &f.MCP, &f.Skill, &f.Status, &f.History, &f.Output, &f.Sessions}
	return append(append(modes, f.jobModes.modes()...), &f.Command)
}

// mode is the one mode the command line asks for.
func (f *flags) mode() (mode, error) {
	var chosen []mode
	for _, m := range f.modes() {
		if tw, ok := m.(takesWords); ok && m.chosen() {
			tw.takeWords(words(f.Command.Words))
			f.Command.Words = nil
		}
	}
	for _, m := range f.modes() {
		if m.chosen() {
			chosen = append(chosen, m)
		}
	}
	f.JobWait.since = f.JobOutput.Since
	if err := f.jobModes.misplaced(); err != nil {
		return nil, err
	}
	switch {
	case len(chosen) > 1:
		return nil, errors.New("use one of --repl-start, --repl-eval, --repl-close, --screen, --notify, --mcp, --skill, --status, --history, --output, --sessions, the --job modes, or -- WORDS, not several")
	case f.REPLStart.Cmd == "" && (f.REPLStart.Prompt != "" || f.REPLStart.Continuation != ""):
		return nil, errors.New("--prompt and --continuation go with --repl-start")
	case len(chosen) == 0:
		return nil, errors.New("no command given")
	}
	if _, ok := chosen[0].(waitsForFree); f.WaitFree != nil && !ok {
		return nil, errors.New("--wait-free goes with -- WORDS, --repl-start or --repl-eval")
	}
	if _, ok := chosen[0].(printsJSON); f.JSON && !ok {
		return nil, errors.New("--json goes with --screen, --status, --history, --sessions, --jobs, --job-output or --job-screen")
	}
	return chosen[0], chosen[0].check()
}

// command runs shell code in the shared terminal: ptysend -- WORDS.
type command struct {
	Words []string `arg:"" optional:"" passthrough:"" help:"Shell code to run in the shared terminal."`
}

func (m *command) chosen() bool { return len(m.Words) > 0 }

func (m *command) check() error {
	if m.Words[0] == "--" {
		m.Words = m.Words[1:]
	} else if strings.HasPrefix(m.Words[0], "-") {
		// The words pass through unparsed from the first one on, so an
		// unknown flag lands here.
		return errors.New("unknown flag " + m.Words[0] + " (to run a command that starts with '-', put it after --)")
	}
	if len(m.Words) == 0 {
		return errors.New("no command given")
	}
	return nil
}

func (m *command) typed() string { return strings.Join(m.Words, " ") }
func (m *command) waitsForFree() {}

func (m *command) Run(c call) (int, error) {
	return session.Send(session.Request{
		Bridge:  c.Bridge,
		Command: strings.Join(m.Words, " "),
		Timeout: c.Timeout,
		MaxTime: c.MaxTime,
		Stdin:   c.Stdin,
		Stdout:  c.Stdout,
		Stderr:  c.Stderr,
		Raw:     c.Raw,
		Waiting: session.Waiting{WaitFree: c.WaitFree},
	})
}

// replStart starts a REPL: ptysend --repl-start CMD [--prompt REGEX].
type replStart struct {
	Cmd          string `name:"repl-start" placeholder:"CMD" help:"Start the REPL CMD in the shared terminal; returns when its prompt shows."`
	Prompt       string `placeholder:"REGEX" help:"With --repl-start: the REPL's prompt, matched against the cursor line (overrides the preset's prompt; its continuation prompt stays unless --continuation is given)."`
	Continuation string `placeholder:"REGEX" help:"With --prompt: the REPL's continuation prompt (python's '... '), if it has one."`
}

func (m *replStart) chosen() bool { return m.Cmd != "" }

func (m *replStart) waitsForFree() {}

func (m *replStart) check() error {
	if m.Continuation != "" && m.Prompt == "" {
		return errors.New("--continuation needs --prompt")
	}
	return nil
}

func (m *replStart) typed() string { return "--repl-start " + m.Cmd }

func (m *replStart) Run(c call) (int, error) {
	req := replRequest(c)
	req.Prompt, req.Continuation = m.Prompt, m.Continuation
	return repl.Start(req, m.Cmd)
}

// replEval evaluates in the running REPL: ptysend --repl-eval EXPR.
type replEval struct {
	Expr *string `name:"repl-eval" placeholder:"EXPR" help:"Evaluate EXPR in the running REPL and print its response (--repl-eval=EXPR when EXPR starts with '-')."`
}

func (m *replEval) chosen() bool { return m.Expr != nil }

func (m *replEval) waitsForFree() {}

func (m *replEval) check() error {
	if strings.TrimSpace(*m.Expr) == "" {
		return errors.New("--repl-eval needs an expression")
	}
	return nil
}

func (m *replEval) typed() string { return "--repl-eval " + *m.Expr }

func (m *replEval) Run(c call) (int, error) { return repl.Eval(replRequest(c), *m.Expr) }

// replClose leaves the running REPL: ptysend --repl-close.
type replClose struct {
	Close bool `name:"repl-close" help:"Leave the running REPL; harmless when none runs."`
}

func (m *replClose) chosen() bool  { return m.Close }
func (m *replClose) check() error  { return nil }
func (m *replClose) typed() string { return "--repl-close" }

func (m *replClose) Run(c call) (int, error) { return repl.Close(replRequest(c)) }

// mcpServer serves the modes as MCP tools on stdin and stdout: ptysend
// --mcp. The server is a program of its own (mcp.go).
type mcpServer struct {
	MCP bool `name:"mcp" help:"Serve the shared terminal to an agent as an MCP server on stdin/stdout (tools run, repl_start, repl_eval, repl_close); --timeout and --max-time set the tools' defaults."`
}

func (m *mcpServer) typed() string { return "--mcp" }

func (m *mcpServer) chosen() bool { return m.MCP }
func (m *mcpServer) check() error { return nil }

func (m *mcpServer) Run(c call) (int, error) { return 0, execMCPServer(c) }

// skill prints the agent skill: ptysend --skill.
type skill struct {
	Skill bool `help:"Print the agent skill (SKILL.md: when and how to use ptysend) and exit."`
}

func (m *skill) typed() string { return "--skill" }

func (m *skill) chosen() bool { return m.Skill }
func (m *skill) check() error { return nil }

func (m *skill) Run(c call) (int, error) {
	_, err := io.WriteString(c.Stdout, skills.PtyBridge)
	return 0, err
}

func replRequest(c call) repl.Request {
	return repl.Request{
		Bridge:  c.Bridge,
		Timeout: c.Timeout, MaxTime: c.MaxTime,
		Stdout: c.Stdout, Stderr: c.Stderr,

		WaitFree: c.WaitFree,
		StartFar: func(rc *relay.Client, t pane.Target, id markers.ID, command string) ([]byte, error) {
			return session.StartFarREPL(c.Bridge, rc, t, id, command, c.Stderr)
		},
	}
}

// call is what every mode gets from the shared flags.
func (f *flags) call(b bridge.Bridge) call {
	c := call{
		Bridge:  b,
		Timeout: time.Duration(f.Timeout), MaxTime: time.Duration(f.MaxTime),
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Raw:  f.Raw,
		JSON: f.JSON,
	}
	if f.WaitFree != nil {
		c.WaitFree = time.Duration(*f.WaitFree)
	}
	return c
}
