package mcpserver

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/human"
	"github.com/ptybridge/ptybridge/internal/look"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/repl"
	"github.com/ptybridge/ptybridge/internal/session"
)

// tools is every tool the server offers, one per ptysend mode, in the
// order clients list them. A tool for a new mode is one more entry: its
// name, title, description and annotations, and the mode's call on the
// tool's input type (whose fields, with their json and jsonschema tags,
// are the input schema). A read-only mode (status, history, output,
// screen) is annotated &mcp.ToolAnnotations{ReadOnlyHint: true,
// OpenWorldHint: no}.
func tools() []tool {
	return []tool{
		toolFor("run", "Run a command in the user's shared terminal", runDescription, runsCode(false),
			func(c call, in runInput) (int, error) {
				if strings.TrimSpace(in.Command) == "" {
					return 0, &failure.Error{Msg: "no command given", Hint: `give the shell code to run, e.g. {"command": "ls -la"}`}
				}
				var stdin io.Reader
				if in.Stdin != nil {
					stdin = strings.NewReader(*in.Stdin)
				}
				return session.Send(session.Request{
					Bridge: c.Bridge, Command: in.Command,
					Timeout: c.Timeout, MaxTime: c.MaxTime,
					Stdin: stdin, Stdout: c.Stdout, Stderr: c.Stderr,
					Cancel: c.Cancel, Raw: in.Raw,
				})
			}),
		toolFor("repl_start", "Start a REPL in the user's shared terminal", replStartDescription, runsCode(false),
			func(c call, in replStartInput) (int, error) {
				switch {
				case strings.TrimSpace(in.Command) == "":
					return 0, &failure.Error{Msg: "no REPL command given", Hint: `give the program to start, e.g. {"command": "python3"}`}
				case in.Continuation != "" && in.Prompt == "":
					return 0, &failure.Error{Msg: "continuation needs prompt", Hint: "give the REPL's main prompt as prompt too"}
				}
				req := c.repl()
				req.Prompt, req.Continuation = in.Prompt, in.Continuation
				return repl.Start(req, in.Command)
			}),
		toolFor("repl_eval", "Evaluate in the REPL of the shared terminal", replEvalDescription, runsCode(false),
			func(c call, in replEvalInput) (int, error) {
				if strings.TrimSpace(in.Expr) == "" {
					return 0, &failure.Error{Msg: "repl_eval needs an expression", Hint: `give it as expr, e.g. {"expr": "1 + 1"}`}
				}
				return repl.Eval(c.repl(), in.Expr)
			}),
		toolFor("repl_close", "Leave the REPL of the shared terminal", replCloseDescription,
			&mcp.ToolAnnotations{DestructiveHint: yes, IdempotentHint: true, OpenWorldHint: no},
			func(c call, _ replCloseInput) (int, error) { return repl.Close(c.repl()) }),
		toolFor("screen", "See the user's shared terminal", screenDescription, readOnly(),
			func(c call, _ screenInput) (int, error) {
				s, err := human.ReadScreen(c.Bridge)
				if err != nil {
					return 0, err
				}
				fmt.Fprint(c.Stdout, s.Text())
				fmt.Fprintf(c.Stderr, "ptysend: %s\n", s.CursorLine())
				return 0, nil
			}),
		toolFor("notify", "Tell the user something in their terminal", notifyDescription,
			&mcp.ToolAnnotations{DestructiveHint: no, OpenWorldHint: no},
			func(c call, in notifyInput) (int, error) {
				if strings.TrimSpace(in.Message) == "" {
					return 0, &failure.Error{Msg: "notify needs a message", Hint: `give it as message, e.g. {"message": "please quit less"}`}
				}
				n, err := human.Notify(c.Bridge, in.Message)
				if err != nil {
					return 0, err
				}
				fmt.Fprintf(c.Stderr, "ptysend: shown to the user in %d terminal(s) of theirs for %v\n", n, human.NoticeTime)
				return 0, nil
			}),
		toolFor("status", "Is the user's shared terminal free?", statusDescription, readOnly(),
			func(c call, _ statusInput) (int, error) {
				st, err := look.ReadStatus(c.Bridge, c.MaxTime, c.Stderr)
				if err != nil {
					return 0, err
				}
				if err := st.Print(c.Stdout, true); err != nil {
					return 0, err
				}
				return st.ExitCode(), nil
			}),
		toolFor("history", "What ran in the user's shared terminal", historyDescription, readOnly(),
			func(c call, in historyInput) (int, error) {
				n := look.DefaultHistory
				if in.Count > 0 {
					n = in.Count
				}
				return 0, look.History(c.Bridge, n, c.MaxTime, c.Stdout, c.Stderr, true)
			}),
		toolFor("output", "What a command printed in the user's shared terminal", outputDescription, readOnly(),
			func(c call, in outputInput) (int, error) {
				return 0, look.Output(c.Bridge, in.ID, in.Raw, c.MaxTime, c.Stdout, c.Stderr)
			}),
	}
}

// readOnly annotates a tool that only looks (a new value each time: the
// tool's title goes into it).
func readOnly() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: no}
}

const statusDescription = `Say whether the user's shared terminal is free for a command, without typing anything: stdout is one JSON object (bridge up or down, the shell's kind, user and directory, the state: idle, busy with a program and since when, a REPL open, copy mode, a half-typed line; whether another agent call holds it; whether the user approves each command). exit_code 0 when free, 75 when busy (retry later, or ask the user), an error result when no bridge runs.`

const historyDescription = `List the last commands run at the prompt of the user's shared terminal, by the user or by the agent, oldest first, as JSON objects one per line in stdout: id, who (user/agent), exit status or running, start time, duration, working directory, the command line. Use it when the user says "I just ran X, look", then output with the id.`

const outputDescription = `Return what one command of the history printed in the user's shared terminal, as clean text in stdout (raw for the terminal's bytes): by id (from history), or without id the user's most recent command, finished or still running. Kept in memory: the last 100 commands, each up to 1 MiB (its first and last parts, with a note of what was left out).`

type statusInput struct{}

type historyInput struct {
	Count int `json:"count,omitempty" jsonschema:"how many of the last commands to list; default 10"`
}

type outputInput struct {
	ID  int  `json:"id,omitempty" jsonschema:"the command's id, as history lists it; without it: the user's most recent command"`
	Raw bool `json:"raw,omitempty" jsonschema:"the terminal's exact bytes instead of clean text"`
}

const screenDescription = `Return the user's shared terminal as they see it right now, as text in stdout (an editor, a pager, a full-screen program, a line they are typing), and on stderr where the cursor is. Types nothing; works while the terminal is busy. Use it when run was refused as busy, to see what the user is doing.`

const notifyDescription = `Show a short message to the user on their terminal's message line ("[agent] MESSAGE", for 10 s, with the bell), without typing into whatever runs there: e.g. to ask them to quit a program so that your command can run, or to answer a prompt. Returns at once.`

type screenInput struct{}

type notifyInput struct {
	Message string `json:"message" jsonschema:"what to tell the user, one short line"`
}

var yes, no = new(true), new(false)

// runsCode annotates a tool that runs the agent's code in the user's
// shell: anything may happen there, including on the network.
func runsCode(idempotent bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{DestructiveHint: yes, IdempotentHint: idempotent, OpenWorldHint: yes}
}

const runDescription = `Run shell code in the user's shared terminal, exactly as if the user had typed it there, and return its stdout, stderr and exit code. The user sees every command, and can answer what it asks in the terminal (a sudo or ssh password, a [y/N] question): use this tool for commands that need the user or their session (ssh-agent, gpg, cloud logins), or that the user asked to see; use your own shell for the rest.

The command is code for the shell that runs in the terminal (bash, zsh, sh or fish, whichever the user runs there; other shells are refused). cd, variables and functions persist between calls. Never run exit or exec, and never type a password for the user. While a REPL runs (repl_start), use repl_eval or repl_close instead.

A non-zero exit_code is the command's own. When a timeout fires the command gets Ctrl-C, then Ctrl-\ 3 s later; timed_out is true, exit_code 124 and stdout holds the output so far. A command waiting for the user is not stopped by timeout (max_time still applies). ptybridge refuses (an error result, nothing typed) while the user runs something in the terminal or has typed part of a line; the hint says what to ask them.`

const replStartDescription = `Start an interactive interpreter (python3, node, psql, irb, ghci, lua, sqlite3, nix repl...) in the user's shared terminal and return once its prompt shows; stdout holds what it printed before (its banner). For a program without a preset, give its prompt as a regular expression matched against the line the cursor is on (e.g. "^>>> "), and its continuation prompt if it has one. One REPL at a time; while it runs, run is refused: use repl_eval, and repl_close when done.`

const replEvalDescription = `Type an expression (one or several lines) into the REPL started with repl_start, and return its response as text in stdout: without the echoed input, prompts or colours. An open block (a python def) gets the empty line that closes it; input that is still incomplete after that is cancelled. A timeout interrupts the evaluation with Ctrl-C (never Ctrl-\): the REPL and its state stay usable. A REPL that died is reported as an error; run works again after it.`

const replCloseDescription = `Leave the REPL started with repl_start: Ctrl-D, then SIGTERM, then SIGKILL, until the user's shell is back; its state (variables, definitions) is lost. Closing when no REPL runs is harmless.`

// limitsInput are the limits of a tool that runs something: the CLI's
// --timeout and --max-time.
type limitsInput struct {
	Timeout *Duration `json:"timeout,omitempty" jsonschema:"stop after this long without output (stdout or stderr): seconds (10) or a duration (\"90s\", \"2m\"); 0 = never; default 10s"`
	MaxTime *Duration `json:"max_time,omitempty" jsonschema:"stop after this long in all, including waiting for another call's turn: seconds or a duration; 0 = never; default 120s"`
}

func (l limitsInput) limits() limitsInput { return l }

type runInput struct {
	Command string  `json:"command" jsonschema:"shell code for the shell of the shared terminal, run as if the user typed it (quote what the shell must not expand)"`
	Stdin   *string `json:"stdin,omitempty" jsonschema:"text for the command's standard input; without it the command reads the shared terminal, where the user can answer it"`
	Raw     bool    `json:"raw,omitempty" jsonschema:"return stdout as the terminal's exact bytes (colours, carriage returns) instead of the clean text a pipe would carry"`
	limitsInput
}

type replStartInput struct {
	Command      string `json:"command" jsonschema:"the REPL to start, as shell code, e.g. python3"`
	Prompt       string `json:"prompt,omitempty" jsonschema:"its prompt as a regular expression matched against the cursor line, e.g. \"^>>> \" (needed for programs without a preset)"`
	Continuation string `json:"continuation,omitempty" jsonschema:"its continuation (more input) prompt as a regular expression, with prompt"`
	limitsInput
}

type replEvalInput struct {
	Expr string `json:"expr" jsonschema:"the input to type into the REPL: one or several lines"`
	limitsInput
}

type replCloseInput struct{}

// tool is one MCP tool and how to add it to a server.
type tool struct {
	def *mcp.Tool
	add func(*server)
}

// toolFor makes the tool name, with In as its input, that runs mode.
func toolFor[In any](name, title, description string, hints *mcp.ToolAnnotations, mode func(call, In) (int, error)) tool {
	hints.Title = title
	def := &mcp.Tool{Name: name, Title: title, Description: description, Annotations: hints, InputSchema: inputSchema[In]()}
	return tool{def: def, add: func(s *server) {
		mcp.AddTool(s.mcp, def, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Result, error) {
			var lim limitsInput
			if l, ok := any(in).(interface{ limits() limitsInput }); ok {
				lim = l.limits()
			}
			return s.serve(ctx, req, lim, func(c call) (int, error) { return mode(c, in) })
		})
	}}
}

// repl is the call as a REPL request.
func (c call) repl() repl.Request {
	return repl.Request{
		Bridge:  c.Bridge,
		Timeout: c.Timeout, MaxTime: c.MaxTime,
		Stdout: c.Stdout, Stderr: c.Stderr,
		Cancel: c.Cancel,
		StartFar: func(rc *relay.Client, t pane.Target, id markers.ID, command string) ([]byte, error) {
			return session.StartFarREPL(c.Bridge, rc, t, id, command, c.Stderr)
		},
	}
}
