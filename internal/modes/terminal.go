package modes

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ptybridge/ptybridge/internal/call"
	"github.com/ptybridge/ptybridge/internal/cli"
	"github.com/ptybridge/ptybridge/internal/human"
	"github.com/ptybridge/ptybridge/internal/look"
	"github.com/ptybridge/ptybridge/internal/remote"
	"github.com/ptybridge/ptybridge/internal/repl"
)

// The modes that type into the shared shell: a command, and a REPL's start, evaluations and close.

type command struct {
	Words   []string `arg:"" optional:"" passthrough:"" help:"Shell code to run in the shared terminal." json:"-"`
	Command string   `kong:"-" json:"command" jsonschema:"shell code for the shell of the shared terminal, run as if the user typed it (quote what the shell must not expand)"`
	Stdin   *string  `kong:"-" json:"stdin,omitempty" jsonschema:"text for the command's standard input; without it the command reads the shared terminal, where the user can answer it"`
	// StdinFrom is the command line's choice; the MCP tool's is Stdin.
	StdinFrom string `name:"stdin" enum:"auto,terminal,forward" default:"auto" placeholder:"terminal|forward" help:"Where the command's stdin comes from: forward ptysend's stdin, or the shared terminal, where the user answers its questions. By default a pipe or a file is forwarded; /dev/null, a closed stdin, a socket or a terminal is not." json:"-"`
}

func (*command) About() About {
	return About{Takes: TakesLimits | TakesRaw | TakesWaitFree, Tool: "run"}
}

// code is the tool's command or the command line's words (one is empty).
func (m *command) code() string { return m.Command + strings.Join(cli.Words(m.Words), " ") }

func (m *command) Check() error {
	if len(m.Words) > 0 && m.Words[0] != "--" && strings.HasPrefix(m.Words[0], "-") {
		// The words pass through unparsed from the first one on: an unknown flag lands here.
		return errors.New("unknown flag " + m.Words[0] + " (to run a command that starts with '-', put it after --)")
	}
	if strings.TrimSpace(m.code()) == "" {
		return errors.New("no command given")
	}
	return nil
}

// typed is the call as the agent typed it, which the calls queued behind it are shown.
func (m *command) typed() string { return strings.TrimSpace(m.code()) }

func (m *command) Run(ctx context.Context, e *Env) (int, error) {
	req := e.callRequest(m.typed())
	req.Command = m.code()
	switch {
	case m.Stdin != nil:
		req.Stdin = strings.NewReader(*m.Stdin)
	case m.StdinFrom == "terminal":
		req.Stdin = nil
	case m.StdinFrom == "forward" && req.Stdin != nil:
		req.Stdin = struct{ io.Reader }{req.Stdin} // no *os.File: forwarded, whatever it is
	}
	return call.Run(ctx, e.Bridge, req)
}

// callRequest is the request of a mode that types, from the options.
func (e *Env) callRequest(typed string) call.Request {
	req := call.Request{Typed: typed, Stdin: e.Stdin, Stdout: e.Stdout, Stderr: e.Stderr, Notes: e.Notes, Raw: e.Raw,
		StopsCaught: e.StopsCaught, Timeout: e.Timeout.Duration(), MaxTime: e.MaxTime.Duration()}
	if e.WaitFree != nil {
		req.WaitFree = e.WaitFree.Duration()
	}
	return req
}

type replStart struct {
	Cmd          string `name:"repl-start" placeholder:"CMD" help:"Start the REPL CMD in the shared terminal; returns when its prompt shows." json:"command" jsonschema:"the REPL to start, as shell code, e.g. python3"`
	Prompt       string `placeholder:"REGEX" help:"With --repl-start: the REPL's prompt, matched against the cursor line (overrides the preset's prompt; its continuation prompt stays unless --continuation is given)." json:"prompt,omitempty" jsonschema:"its prompt as a regular expression matched against the cursor line, e.g. \"^>>> \" (needed for programs without a preset)" misplaced:"--prompt and --continuation go with --repl-start"`
	Continuation string `placeholder:"REGEX" help:"With --prompt: the REPL's continuation prompt (python's '... '), if it has one." json:"continuation,omitempty" jsonschema:"its continuation (more input) prompt as a regular expression, with prompt" misplaced:"--prompt and --continuation go with --repl-start"`
}

func (*replStart) About() About { return About{Takes: TakesLimits | TakesWaitFree, Tool: "repl_start"} }

func (m *replStart) Check() error {
	switch {
	case strings.TrimSpace(m.Cmd) == "":
		return errors.New("--repl-start needs the REPL's command, e.g. python3")
	case m.Continuation != "" && m.Prompt == "":
		return errors.New("--continuation needs --prompt")
	}
	return nil
}

func (m *replStart) typed() string { return "--repl-start " + m.Cmd }

func (m *replStart) Run(ctx context.Context, e *Env) (int, error) {
	return repl.Start(ctx, e.Bridge, repl.Request{Request: e.callRequest(m.typed()), Prompt: m.Prompt, Continuation: m.Continuation}, m.Cmd)
}

type replEval struct {
	Expr *string `name:"repl-eval" placeholder:"EXPR" help:"Evaluate EXPR in the running REPL and print its response (--repl-eval=EXPR when EXPR starts with '-')." json:"expr" jsonschema:"the input to type into the REPL: one or several lines"`
}

func (*replEval) About() About { return About{Takes: TakesLimits | TakesWaitFree, Tool: "repl_eval"} }

func (m *replEval) Check() error {
	if strings.TrimSpace(*m.Expr) == "" {
		return errors.New("--repl-eval needs an expression")
	}
	return nil
}

func (m *replEval) typed() string { return "--repl-eval " + *m.Expr }

func (m *replEval) Run(ctx context.Context, e *Env) (int, error) {
	return repl.Eval(ctx, e.Bridge, repl.Request{Request: e.callRequest(m.typed())}, *m.Expr)
}

type replClose struct {
	Close bool `name:"repl-close" help:"Leave the running REPL; harmless when none runs." json:"-"`
}

func (*replClose) About() About { return About{Takes: TakesLimits, Tool: "repl_close"} }

func (m *replClose) typed() string { return "--repl-close" }

func (m *replClose) Run(ctx context.Context, e *Env) (int, error) {
	return repl.Close(ctx, e.Bridge, repl.Request{Request: e.callRequest(m.typed())})
}

// The modes that type nothing: they look at the terminal, or talk to the human (internal/look,
// internal/human), and answer while it is busy. Their flags' help is short, for a help that
// reads at a glance (the description above the flags says more).

type screen struct {
	Screen bool `name:"screen" help:"Print the shared terminal's screen as the user sees it now (an editor, a pager, a half-typed line...), and where the cursor is (on stderr; with --json, one JSON object). Types nothing." json:"-"`
}

func (*screen) About() About { return About{Takes: TakesJSON, Tool: "screen", Gives: human.Screen{}} }

func (m *screen) Run(ctx context.Context, e *Env) (int, error) {
	s, err := human.ReadScreen(e.Bridge)
	return printScreen(e, s, err)
}

// printScreen prints a screen (the shared pane's or a job's): text, the cursor on stderr; or JSON.
func printScreen(e *Env, s interface {
	Text() string
	CursorLine() string
}, err error) (int, error) {
	if err != nil {
		return 0, err
	}
	e.give(s)
	if e.JSON {
		return 0, json.NewEncoder(e.Stdout).Encode(s)
	}
	fmt.Fprint(e.Stdout, s.Text())
	fmt.Fprintf(e.Notes, "ptysend: %s\n", s.CursorLine())
	return 0, nil
}

type notify struct {
	Message *string `name:"notify" placeholder:"MESSAGE" help:"Show MESSAGE to the user in their terminal(s), as \"[agent] MESSAGE\" on tmux's message line for 10 s, with the terminal bell. Types nothing; returns at once." json:"message" jsonschema:"what to tell the user, one short line"`
}

func (*notify) About() About { return About{Tool: "notify", Gives: NotifyResult{}} }

func (m *notify) Check() error {
	if strings.TrimSpace(*m.Message) == "" {
		return errors.New("--notify needs a message")
	}
	return nil
}

func (m *notify) Run(ctx context.Context, e *Env) (int, error) {
	n, err := human.Notify(e.Bridge, *m.Message)
	if err != nil {
		return 0, err
	}
	e.give(NotifyResult{Terminals: n, Seconds: int(human.NoticeTime.Seconds())})
	terminals := "1 terminal"
	if n != 1 {
		terminals = fmt.Sprintf("%d terminals", n)
	}
	fmt.Fprintf(e.Notes, "ptysend: shown to the user in %s of theirs for %v\n", terminals, human.NoticeTime)
	return 0, nil
}

type statusMode struct {
	Status bool `name:"status" help:"Say whether the terminal is free (exit 0) or what holds it (75)." json:"-"`
}

func (*statusMode) About() About {
	return About{Takes: TakesJSON, Tool: "status", Gives: look.Status{}}
}

func (m *statusMode) Run(ctx context.Context, e *Env) (int, error) {
	s, err := look.ReadStatus(e.Bridge)
	if err == nil {
		e.give(*s)
	}
	if err := cmp.Or(err, s.Print(e.Stdout, e.JSON)); err != nil {
		return 0, err
	}
	return s.ExitCode(), nil
}

type historyMode struct {
	History cli.OptionalValue `name:"history" help:"List the last commands run at the prompt (--history=N: the last N; 10)." json:"-"`
	Count   int               `kong:"-" json:"count,omitempty" jsonschema:"how many of the last commands to list; default 10"`
}

func (*historyMode) About() About {
	return About{Takes: TakesJSON, Tool: "history", Gives: HistoryResult{}}
}

func (m *historyMode) Check() error {
	if m.Count == 0 {
		m.Count = look.DefaultHistory
	}
	return positive(m.History, &m.Count, "--history=N needs a number of commands, 1 or more")
}

func (m *historyMode) Run(ctx context.Context, e *Env) (int, error) {
	entries, err := look.ReadHistory(e.Bridge, m.Count)
	if err != nil {
		return 0, err
	}
	e.give(HistoryResult{Commands: entries})
	return 0, look.PrintHistory(entries, e.Stdout, e.JSON)
}

type outputMode struct {
	Output cli.OptionalValue `name:"output" help:"Print what a command printed (--output=ID; alone: the user's last)." json:"-"`
	ID     int               `kong:"-" json:"id,omitempty" jsonschema:"the command's id, as history lists it; without it: the user's most recent command"`
	// Offset is the tool's way to page through a long output (max_bytes bounds each answer).
	Offset int64 `kong:"-" json:"offset,omitempty" jsonschema:"skip this many bytes of the output first (to read on where a bounded answer was cut)"`
}

func (*outputMode) About() About {
	return About{Takes: TakesRaw, Tool: "output", Gives: OutputResult{}}
}

func (m *outputMode) Check() error {
	return positive(m.Output, &m.ID, "--output=ID needs the id of a command, as --history shows it")
}

// positive reads the number of --flag=N into n, refusing one below 1.
func positive(flag cli.OptionalValue, n *int, refusal string) error {
	if flag.Value == "" {
		return nil
	}
	v, err := strconv.Atoi(flag.Value)
	if err != nil || v < 1 {
		return errors.New(refusal)
	}
	*n = v
	return nil
}

func (m *outputMode) Run(ctx context.Context, e *Env) (int, error) {
	entry, text, err := look.ReadOutput(e.Bridge, m.ID, e.Raw)
	if err != nil {
		return 0, err
	}
	if e.Give != nil {
		text = text[min(len(text), int(max(0, m.Offset))):]
		e.give(OutputResult{Entry: entry, Output: text, Offset: max(0, m.Offset)})
	}
	return 0, look.PrintOutput(text, e.Stdout)
}

type sessions struct {
	List bool `name:"sessions" help:"List the user's bridges: name, user@host and shell where commands run, free or busy, attached terminals (--json: an array of objects)." json:"-"`
}

func (*sessions) About() About {
	return About{Takes: TakesJSON, Tool: "sessions", Gives: SessionsResult{}, Local: true}
}

func (m *sessions) Run(ctx context.Context, e *Env) (int, error) {
	list := append(look.Sessions(e.Bridge.Exe), remote.Sessions(e.Bridge.RuntimeDir)...)
	e.give(SessionsResult{Sessions: list})
	return 0, look.PrintSessions(e.Stdout, list, e.JSON)
}
