package modes

import (
	"context"
	"errors"
	"strings"

	"github.com/ptybridge/ptybridge/internal/call"
	"github.com/ptybridge/ptybridge/internal/repl"
)

// The modes that type into the shared shell: a command, and a REPL's
// start, evaluations and close.

// command runs shell code in the shared terminal: ptysend -- WORDS.
type command struct {
	Words   []string `arg:"" optional:"" passthrough:"" help:"Shell code to run in the shared terminal." json:"-"`
	Command string   `kong:"-" json:"command" jsonschema:"shell code for the shell of the shared terminal, run as if the user typed it (quote what the shell must not expand)"`
	Stdin   *string  `kong:"-" json:"stdin,omitempty" jsonschema:"text for the command's standard input; without it the command reads the shared terminal, where the user can answer it"`
}

func (m *command) About() About {
	return About{Chosen: len(m.Words) > 0 || m.Command != "", Takes: TakesLimits | TakesRaw | TakesWaitFree,
		Tool: &Tool{Name: "run", Title: "Run a command in the user's shared terminal", Description: runDescription, Destructive: true, OpenWorld: true}}
}

// code is the tool's command or the command line's words (the other is
// empty).
func (m *command) code() string { return m.Command + joined(words(m.Words)) }

func (m *command) Check() error {
	if len(m.Words) > 0 && m.Words[0] != "--" && strings.HasPrefix(m.Words[0], "-") {
		// The words pass through unparsed from the first one on: an
		// unknown flag lands here.
		return errors.New("unknown flag " + m.Words[0] + " (to run a command that starts with '-', put it after --)")
	}
	if strings.TrimSpace(m.code()) == "" {
		return errors.New("no command given")
	}
	return nil
}

func (m *command) Run(ctx context.Context, e *Env) (int, error) {
	req := e.callRequest(strings.TrimSpace(m.code()))
	req.Command = m.code()
	if m.Stdin != nil {
		req.Stdin = strings.NewReader(*m.Stdin)
	}
	return call.Run(ctx, e.Bridge, req)
}

// callRequest is the request of a mode that types, from the options.
func (e *Env) callRequest(typed string) call.Request {
	req := call.Request{Typed: typed, Stdin: e.Stdin, Stdout: e.Stdout, Stderr: e.Stderr, Raw: e.Raw}
	req.Timeout, req.MaxTime = e.limits()
	if e.WaitFree != nil {
		req.WaitFree = e.WaitFree.Duration()
	}
	return req
}

const runDescription = `Run shell code in the user's shared terminal, exactly as if the user had typed it there, and return its stdout, stderr and exit code. The user sees every command, and can answer what it asks in the terminal (a sudo or ssh password, a [y/N] question): use this tool for commands that need the user or their session (ssh-agent, gpg, cloud logins), or that the user asked to see; use your own shell for the rest.

The command is code for the shell that runs in the terminal (bash, zsh, sh or fish, whichever the user runs there; other shells are refused). cd, variables and functions persist between calls. Never run exit or exec, and never type a password for the user. While a REPL runs (repl_start), use repl_eval or repl_close instead.

A non-zero exit_code is the command's own. When a timeout fires the command gets Ctrl-C, then Ctrl-\ 3 s later; timed_out is true, exit_code 124 and stdout holds the output so far. A command waiting for the user is not stopped by timeout (max_time still applies). ptybridge refuses (an error result, nothing typed) while the user runs something in the terminal or has typed part of a line; the hint says what to ask them.`

// replStart starts a REPL: ptysend --repl-start CMD [--prompt REGEX].
type replStart struct {
	Cmd          string `name:"repl-start" placeholder:"CMD" help:"Start the REPL CMD in the shared terminal; returns when its prompt shows." json:"command" jsonschema:"the REPL to start, as shell code, e.g. python3"`
	Prompt       string `placeholder:"REGEX" help:"With --repl-start: the REPL's prompt, matched against the cursor line (overrides the preset's prompt; its continuation prompt stays unless --continuation is given)." json:"prompt,omitempty" jsonschema:"its prompt as a regular expression matched against the cursor line, e.g. \"^>>> \" (needed for programs without a preset)"`
	Continuation string `placeholder:"REGEX" help:"With --prompt: the REPL's continuation prompt (python's '... '), if it has one." json:"continuation,omitempty" jsonschema:"its continuation (more input) prompt as a regular expression, with prompt"`
}

func (m *replStart) About() About {
	return About{Chosen: m.Cmd != "", Takes: TakesLimits | TakesWaitFree,
		Tool: &Tool{Name: "repl_start", Title: "Start a REPL in the user's shared terminal", Description: replStartDescription, Destructive: true, OpenWorld: true}}
}

func (m *replStart) Check() error {
	switch {
	case strings.TrimSpace(m.Cmd) == "":
		return errors.New("--repl-start needs the REPL's command, e.g. python3")
	case m.Continuation != "" && m.Prompt == "":
		return errors.New("--continuation needs --prompt")
	}
	return nil
}

func (m *replStart) misplaced() error {
	if m.Prompt != "" || m.Continuation != "" {
		return errors.New("--prompt and --continuation go with --repl-start")
	}
	return nil
}

func (m *replStart) Run(ctx context.Context, e *Env) (int, error) {
	return repl.Start(ctx, e.Bridge, repl.Request{Request: e.callRequest("--repl-start " + m.Cmd), Prompt: m.Prompt, Continuation: m.Continuation}, m.Cmd)
}

const replStartDescription = `Start an interactive interpreter (python3, node, psql, irb, ghci, lua, sqlite3, nix repl...) in the user's shared terminal and return once its prompt shows; stdout holds what it printed before (its banner). For a program without a preset, give its prompt as a regular expression matched against the line the cursor is on (e.g. "^>>> "), and its continuation prompt if it has one. One REPL at a time; while it runs, run is refused: use repl_eval, and repl_close when done.`

// replEval evaluates in the running REPL: ptysend --repl-eval EXPR.
type replEval struct {
	Expr *string `name:"repl-eval" placeholder:"EXPR" help:"Evaluate EXPR in the running REPL and print its response (--repl-eval=EXPR when EXPR starts with '-')." json:"expr" jsonschema:"the input to type into the REPL: one or several lines"`
}

func (m *replEval) About() About {
	return About{Chosen: m.Expr != nil, Takes: TakesLimits | TakesWaitFree,
		Tool: &Tool{Name: "repl_eval", Title: "Evaluate in the REPL of the shared terminal", Description: replEvalDescription, Destructive: true, OpenWorld: true}}
}

func (m *replEval) Check() error {
	if strings.TrimSpace(*m.Expr) == "" {
		return errors.New("--repl-eval needs an expression")
	}
	return nil
}

func (m *replEval) Run(ctx context.Context, e *Env) (int, error) {
	return repl.Eval(ctx, e.Bridge, repl.Request{Request: e.callRequest("--repl-eval " + *m.Expr)}, *m.Expr)
}

const replEvalDescription = `Type an expression (one or several lines) into the REPL started with repl_start, and return its response as text in stdout: without the echoed input, prompts or colours. An open block (a python def) gets the empty line that closes it; input that is still incomplete after that is cancelled. A timeout interrupts the evaluation with Ctrl-C (never Ctrl-\): the REPL and its state stay usable. A REPL that died is reported as an error; run works again after it.`

// replClose leaves the running REPL: ptysend --repl-close.
type replClose struct {
	Close bool `name:"repl-close" help:"Leave the running REPL; harmless when none runs." json:"-"`
}

func (m *replClose) About() About {
	return About{Chosen: m.Close, Takes: TakesLimits, Tool: &Tool{Name: "repl_close", Title: "Leave the REPL of the shared terminal", Destructive: true, Idempotent: true,
		Description: `Leave the REPL started with repl_start: Ctrl-D, then SIGTERM, then SIGKILL, until the user's shell is back; its state (variables, definitions) is lost. Closing when no REPL runs is harmless.`}}
}

func (m *replClose) Run(ctx context.Context, e *Env) (int, error) {
	return repl.Close(ctx, e.Bridge, repl.Request{Request: e.callRequest("--repl-close")})
}
