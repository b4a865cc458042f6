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
	return About{Chosen: len(m.Words) > 0 || m.Command != "", Takes: TakesLimits | TakesRaw | TakesWaitFree, Tool: "run"}
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
	req.Timeout, req.MaxTime = e.Timeout.Duration(), e.MaxTime.Duration()
	if e.WaitFree != nil {
		req.WaitFree = e.WaitFree.Duration()
	}
	return req
}

// replStart starts a REPL: ptysend --repl-start CMD [--prompt REGEX].
type replStart struct {
	Cmd          string `name:"repl-start" placeholder:"CMD" help:"Start the REPL CMD in the shared terminal; returns when its prompt shows." json:"command" jsonschema:"the REPL to start, as shell code, e.g. python3"`
	Prompt       string `placeholder:"REGEX" help:"With --repl-start: the REPL's prompt, matched against the cursor line (overrides the preset's prompt; its continuation prompt stays unless --continuation is given)." json:"prompt,omitempty" jsonschema:"its prompt as a regular expression matched against the cursor line, e.g. \"^>>> \" (needed for programs without a preset)" misplaced:"--prompt and --continuation go with --repl-start"`
	Continuation string `placeholder:"REGEX" help:"With --prompt: the REPL's continuation prompt (python's '... '), if it has one." json:"continuation,omitempty" jsonschema:"its continuation (more input) prompt as a regular expression, with prompt" misplaced:"--prompt and --continuation go with --repl-start"`
}

func (m *replStart) About() About {
	return About{Chosen: m.Cmd != "", Takes: TakesLimits | TakesWaitFree, Tool: "repl_start"}
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

func (m *replStart) Run(ctx context.Context, e *Env) (int, error) {
	return repl.Start(ctx, e.Bridge, repl.Request{Request: e.callRequest("--repl-start " + m.Cmd), Prompt: m.Prompt, Continuation: m.Continuation}, m.Cmd)
}

// replEval evaluates in the running REPL: ptysend --repl-eval EXPR.
type replEval struct {
	Expr *string `name:"repl-eval" placeholder:"EXPR" help:"Evaluate EXPR in the running REPL and print its response (--repl-eval=EXPR when EXPR starts with '-')." json:"expr" jsonschema:"the input to type into the REPL: one or several lines"`
}

func (m *replEval) About() About {
	return About{Chosen: m.Expr != nil, Takes: TakesLimits | TakesWaitFree, Tool: "repl_eval"}
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

// replClose leaves the running REPL: ptysend --repl-close.
type replClose struct {
	Close bool `name:"repl-close" help:"Leave the running REPL; harmless when none runs." json:"-"`
}

func (m *replClose) About() About {
	return About{Chosen: m.Close, Takes: TakesLimits, Tool: "repl_close"}
}

func (m *replClose) Run(ctx context.Context, e *Env) (int, error) {
	return repl.Close(ctx, e.Bridge, repl.Request{Request: e.callRequest("--repl-close")})
}
