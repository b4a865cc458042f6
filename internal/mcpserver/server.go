// Package mcpserver is ptysend --mcp (cmd/ptysend-mcp): the shared
// terminal served to an agent as Model Context Protocol tools over stdin
// and stdout, on the official Go SDK. A tool is a mode of internal/modes,
// whose very code a call runs, its failures worded as the CLI words them
// (cli.Report); the package adds tools.md, the schemas, the results,
// progress, and cancelling a call with its request; a call for a remote
// bridge goes to its host's own server (remote.go). It never drives the
// pane, the relay or tmux itself, nor writes to stdout but the protocol.
package mcpserver

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/term"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/cli"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/jobs"
	"github.com/ptybridge/ptybridge/internal/look"
	"github.com/ptybridge/ptybridge/internal/modes"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/remote"
	"github.com/ptybridge/ptybridge/internal/rundir"
)

// Config is what every tool call shares.
type Config struct {
	Bridge bridge.Bridge
	// Timeout and MaxTime are the limits of a call that gives none: the
	// --timeout and --max-time given with --mcp, else the CLI's defaults.
	Timeout, MaxTime time.Duration
	Version          string // ptysend's, told to the client
}

// instructions go to the client at initialization, to come before the tools.
const instructions = `ptybridge runs your commands in the user's own terminal: a shell in a tmux session that the user opened with ptybridge, watches, and can type into.

When to use it: for what needs the user or their session: sudo and other password prompts (the user types the password there, never you), their ssh-agent, gpg or cloud logins, [y/N] questions only they can answer, or when they ask to see what you run. Use your own shell for the rest.

How it works:
- run types a command as if the user had typed it; cd, variables and functions persist. Its stdout, stderr and exit_code are the command's own: a non-zero exit_code is not an error of the tool.
- One call at a time uses the terminal; other calls wait their turn (notes say so).
- Busy: while the user runs a program or has typed part of a line, nothing is typed and the call fails with retry "later". Give wait_free (e.g. "2m") to wait for them instead; status and screen show what they are doing; notify asks them.
- Approval: when the user approves each command, the call waits for their answer; a refusal is an error with code 77.
- Timeouts: timeout is the longest silence, max_time the whole call. When one fires the command gets Ctrl-C, and the result is an error with timed_out and retry "with_more_time". A command waiting for the user's answer is not stopped by timeout.
- REPLs: repl_start, then repl_eval (error true marks an exception), then repl_close. Long-running servers and full-screen programs: job_start and the job tools.
- history and output show what the user ran and printed.

Results: structured content per the output schema, and a short text. isError is set only when the tool did not do what was asked; then failure has the message and a hint (what to do or what to ask the user), and retry says what helps: later (nothing was done; it can succeed later: the user is busy, or a remote bridge has no connection until the user reconnects), with_more_time, after_the_hint (do what the hint says first), again (the call was stopped). notes holds ptybridge's remarks, never the command's output. Long output is kept within max_bytes (head and tail; truncated_bytes). Every tool takes session to pick one of several bridges (sessions lists them).`

// ServeStdio serves the tools on stdin and stdout until the client closes
// stdin; a call still running then is cancelled and waited for. Stdout
// is set aside for the protocol and fd 1 becomes a copy of stderr, so
// that nothing else (a stray print, a child) can write into the stream.
func ServeStdio(cfg Config) error {
	protocol, err := platform.SetStdoutAside("mcp-stdout")
	if err != nil {
		return fmt.Errorf("setting stdout aside for the protocol: %w", err)
	}
	if term.IsTerminal(int(os.Stdin.Fd())) {
		fmt.Fprintln(os.Stderr, "ptysend: --mcp serves the shared terminal to an agent as an MCP server on stdin and stdout;\n"+
			"ptysend: register it with your agent (e.g. claude mcp add ptybridge -- ptysend --mcp) rather than running it here")
	}
	s := newServer(cfg)
	err = s.mcp.Run(context.Background(), &mcp.IOTransport{Reader: os.Stdin, Writer: protocol})
	s.calls.Wait()
	s.closeHosts()
	return err
}

type server struct {
	cfg   Config
	mcp   *mcp.Server
	calls sync.WaitGroup
	words words // the CLI's spellings in the tools' words
	hosts hosts // the MCP servers of remote bridges' hosts (remote.go)
}

func newServer(cfg Config) *server {
	s := &server{cfg: cfg, words: newWords(modes.All())}
	s.mcp = mcp.NewServer(
		&mcp.Implementation{Name: "ptybridge", Title: "ptybridge: the user's shared terminal", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: &mcp.ServerCapabilities{}})
	for _, m := range modes.All() {
		if about := m.About(); about.Tool != "" {
			s.add(m)
		}
	}
	return s
}

//go:embed tools.md
var tools string

// errorRule ends every tool's description.
const errorRule = "The result is structured content (see the output schema) and a short text. isError is set only when the tool did not do what was asked " +
	"(busy, refused, timed out, no bridge): failure says what happened and what to do (hint), retry whether and when trying again helps. " +
	"notes holds ptybridge's remarks on the call."

// toolNamed is the tool of that name in tools.md, under the heading "## NAME (HINTS): TITLE".
func toolNamed(name string) *mcp.Tool {
	for _, section := range strings.Split(tools, "\n## ")[1:] {
		head, text, _ := strings.Cut(section, "\n")
		head, title, _ := strings.Cut(head, ": ")
		if tool, hints, _ := strings.Cut(head, " "); tool == name {
			has := func(hint string) bool { return strings.Contains(hints, hint) }
			a := &mcp.ToolAnnotations{Title: title, ReadOnlyHint: has("read-only"), IdempotentHint: has("idempotent"), OpenWorldHint: new(has("open-world"))}
			if !a.ReadOnlyHint {
				a.DestructiveHint = new(has("destructive"))
			}
			return &mcp.Tool{Name: name, Title: title, Description: strings.TrimSpace(text) + "\n\n" + errorRule, Annotations: a}
		}
	}
	panic("no tool " + name + " in tools.md")
}

// add adds the mode's tool, whose schemas come from the mode's struct and About.
func (s *server) add(m modes.Mode) {
	typ, about := reflect.TypeOf(m).Elem(), m.About()
	def := toolNamed(about.Tool)
	in := inputSchema(typ, about)
	resolved := must(in.Resolve(nil))
	def.InputSchema, def.OutputSchema = in, outputSchema(about)
	s.mcp.AddTool(def, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.call(ctx, req, typ, about, resolved), nil
	})
}

// inputSchema is a tool's parameters: the mode's fields, the shared options it takes, session,
// and max_bytes where a result can be long.
func inputSchema(typ reflect.Type, about modes.About) *jsonschema.Schema {
	in := must(jsonschema.ForType(typ, schemaOptions))
	in.Properties = maps.Collect(maps.All(in.Properties)) // a copy, never nil
	for _, name := range in.Required {                    // a pointer or slice field may be nil, but a required one is given
		if p := in.Properties[name]; p != nil && slices.Contains(p.Types, "null") {
			types := slices.DeleteFunc(slices.Clone(p.Types), func(t string) bool { return t == "null" })
			nonNull := *p
			if nonNull.Types = types; len(types) == 1 {
				nonNull.Type, nonNull.Types = types[0], nil
			}
			in.Properties[name] = &nonNull
		}
	}
	for opt, bit := range optionTaken {
		if about.Takes&bit != 0 {
			in.Properties[opt] = optionSchemas[opt]
		}
	}
	in.Properties["session"] = optionSchemas["session"]
	if bounded[about.Tool] {
		in.Properties["max_bytes"] = maxBytesSchema
	}
	return in
}

// outputSchema is a tool's structured result: what its mode gives (or a command's result), and
// the outcome's fields. Nothing is required: a failed call has only the outcome's.
func outputSchema(about modes.About) *jsonschema.Schema {
	var out *jsonschema.Schema
	switch {
	case about.Gives != nil:
		out = must(jsonschema.ForType(reflect.TypeOf(about.Gives), schemaOptions))
	case isCommand(about):
		out = must(jsonschema.For[CommandResult](schemaOptions))
	default:
		out = &jsonschema.Schema{Type: "object"}
	}
	out.Properties = maps.Collect(maps.All(out.Properties)) // a copy, never nil
	maps.Copy(out.Properties, outcomeSchema.Properties)
	out.Required = nil
	return out
}

// isCommand: the mode types into the terminal, and its result is the command's.
func isCommand(about modes.About) bool {
	return about.Gives == nil && about.Takes&modes.TakesLimits != 0
}

// bounded are the tools whose text a result bounds with max_bytes.
var bounded = map[string]bool{"run": true, "repl_eval": true, "output": true, "job_output": true}

// The shared options as parameters: a duration is seconds or a Go duration.
var (
	schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[cli.Duration](): {Types: []string{"number", "string"}},
		reflect.TypeFor[time.Time]():    {Type: "string", Format: "date-time"}}}
	optionSchemas = must(jsonschema.For[modes.Options](schemaOptions)).Properties
	optionTaken   = map[string]modes.Takes{"timeout": modes.TakesLimits, "max_time": modes.TakesLimits,
		"raw": modes.TakesRaw, "wait_free": modes.TakesWaitFree}
	maxBytesSchema = &jsonschema.Schema{Type: "integer", Minimum: new(float64(1024)),
		Description: "keep each output field within this many bytes: its first and last halves, and truncated_bytes says what was left out; default 262144 (256 KiB)"}
	outcomeSchema = func() *jsonschema.Schema {
		s := must(jsonschema.For[Outcome](schemaOptions))
		s.Properties["retry"].Enum = retryVerdicts
		return s
	}()
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(fmt.Sprintf("a tool's schema: %v", err))
	}
	return v
}

// call runs one tool call: its arguments, the mode, and the result.
func (s *server) call(ctx context.Context, req *mcp.CallToolRequest, typ reflect.Type, about modes.About, in *jsonschema.Resolved) *mcp.CallToolResult {
	m := reflect.New(typ).Interface().(modes.Mode)
	opts := modes.Options{Timeout: cli.Duration(s.cfg.Timeout), MaxTime: cli.Duration(s.cfg.MaxTime)}
	var extra struct {
		MaxBytes int `json:"max_bytes"`
	}
	b := s.cfg.Bridge
	if err := parse(req.Params.Arguments, in, m, &opts, &extra); err != nil {
		return s.refused(&failure.Error{Msg: err.Error(), Hint: "give the arguments as the tool's input schema says"})
	}
	if opts.Session != "" {
		if err := bridge.ValidateName(opts.Session); err != nil {
			return s.refused(err)
		}
		b.Name = opts.Session
	}
	s.calls.Add(1)
	defer s.calls.Done()
	// A remote bridge's record names the program to run (ssh): trusted only in a private runtime directory.
	if r, ok := remote.Find(b.RuntimeDir, b.Name); ok && !about.Local && rundir.Ensure(b.RuntimeDir) == nil {
		return s.remoteCall(ctx, req, r)
	}
	start := time.Now()
	stdout, stderr, notes := newCapture(), newCapture(), newCapture()
	stop := notifyProgress(ctx, req, start, stdout, notes, s.words.say)
	var given any
	status, err := m.Run(ctx, &modes.Env{Bridge: b, Options: opts, Stdout: stdout, Stderr: stderr, Notes: notes,
		Give: func(v any) { given = v }})
	stop()
	r := ran{tool: about.Tool, status: status, err: err, given: given, stdout: stdout.seal(), stderr: stderr.seal(),
		notes: notes.seal().text, took: time.Since(start), maxBytes: cmp.Or(extra.MaxBytes, maxBytesDefault), bridge: b}
	if isCommand(about) {
		return s.commandReply(r, req.Params.Arguments)
	}
	return s.dataReply(r)
}

// parse checks the arguments against the tool's input schema and reads them into the mode, the
// shared options and the server's own parameters.
func parse(args json.RawMessage, in *jsonschema.Resolved, into ...any) error {
	var v map[string]any
	if len(args) == 0 || string(args) == "null" {
		args = []byte("{}")
	}
	if err := json.Unmarshal(args, &v); err != nil {
		return err
	}
	if err := in.Validate(v); err != nil {
		return fmt.Errorf("the arguments: %v", err)
	}
	for _, x := range into {
		if err := json.Unmarshal(args, x); err != nil {
			return err
		}
	}
	return modes.Check(into[0].(modes.Mode))
}

// refused is the result of a call refused before it ran.
func (s *server) refused(err error) *mcp.CallToolResult {
	o, text := s.outcome(err, "")
	return reply(nil, o, text)
}

// ran is what a call's mode did.
type ran struct {
	tool           string
	status         int
	err            error
	given          any
	stdout, stderr sealed
	notes          string
	took           time.Duration
	maxBytes       int
	bridge         bridge.Bridge
}

// outcome is a call's notes, and its failure with the verdict on retrying (text: the failure's).
func (s *server) outcome(err error, notes string) (o Outcome, text string) {
	o.Notes = s.notesOf(notes)
	if err != nil {
		o.Failure = s.failureOf(err)
		var why string
		o.Retry, why = retry(o.Failure.Code)
		text = fmt.Sprintf("error: %s\nhint: %s\nretry: %s: %s\n", o.Failure.Message, o.Failure.Hint, o.Retry, why)
	}
	return o, text
}

// commandReply is the result of run and the REPL tools: the command's streams and status.
func (s *server) commandReply(r ran, args json.RawMessage) *mcp.CallToolResult {
	o, text := s.outcome(r.err, r.notes)
	c := CommandResult{ExitCode: r.status, DurationMS: r.took.Milliseconds()}
	readOn := "history lists the command; output with its id and offset reads all it printed"
	var cut, cutErr int64
	c.Stdout, cut = bound(r.stdout.text, r.stdout.seam, r.stdout.left, r.maxBytes, readOn)
	c.Stderr, cutErr = bound(r.stderr.text, r.stderr.seam, r.stderr.left, r.maxBytes, readOn)
	if c.TruncatedBytes = cut + cutErr; c.TruncatedBytes > 0 {
		c.OutputID = s.agentCommandID(r.bridge, args)
	}
	if o.Failure != nil {
		c.ExitCode = o.Failure.Code
		c.TimedOut = c.ExitCode == failure.ExitTimeout
	}
	c.Error = r.tool == "repl_eval" && r.err == nil && r.status == 1
	if o.Failure == nil || c.Stdout != "" || c.Stderr != "" {
		text += commandText(c, r.took)
	}
	return reply(c, o, text)
}

// agentCommandID is the history's id of the command the call ran (0: not found).
func (s *server) agentCommandID(b bridge.Bridge, args json.RawMessage) int {
	var a struct{ Command string }
	json.Unmarshal(args, &a)
	entries, _ := look.ReadHistory(b, 20)
	for _, e := range slices.Backward(entries) {
		if e.Who == "agent" && strings.TrimSpace(e.Command) == strings.TrimSpace(a.Command) {
			return e.ID
		}
	}
	return 0
}

// dataReply is the result of the other tools: what the mode gave, its text as the CLI prints it.
func (s *server) dataReply(r ran) *mcp.CallToolResult {
	o, text := s.outcome(r.err, r.notes)
	var fields any
	if r.err == nil {
		fields = s.boundGiven(r.given, r.maxBytes)
		text += r.stdout.text
		if r.stdout.text == "" && r.given == nil {
			text += "done\n"
		}
	}
	return reply(fields, o, text)
}

// boundGiven bounds the long text of a result that has one.
func (s *server) boundGiven(given any, max int) any {
	switch g := given.(type) {
	case modes.OutputResult:
		g.Output, g.TruncatedBytes = bound(g.Output, 0, 0, max, fmt.Sprintf("output with offset %d reads on from the cut", g.Offset+int64(runeStart(g.Output, max/2))))
		return g
	case jobs.OutputAnswer:
		g.Text, g.TruncatedBytes = bound(g.Text, 0, 0, max, "job_output with a since offset reads a part")
		return g
	}
	return given
}
