// Package mcpserver is ptysend --mcp (cmd/ptysend-mcp): the shared
// terminal served to an agent as Model Context Protocol tools over stdin
// and stdout, on the official Go SDK. A tool is a mode of internal/modes,
// whose very code a call runs, its failures worded as the CLI words them
// (cli.Report); the package adds tools.md, the schemas, the results,
// progress, and cancelling a call with its request. It never drives the
// pane, the relay or tmux itself, nor writes to stdout but the protocol.
package mcpserver

import (
	"bytes"
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
	"github.com/ptybridge/ptybridge/internal/modes"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
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
const instructions = `ptybridge runs your commands in the user's own terminal: a shell in a tmux session that the user opened with ptybridge and watches, and can type into. Use it for what needs the user: sudo or other password prompts, their ssh-agent, gpg or cloud logins, questions only they can answer, or when they ask to see what you run. Use your own shell for the rest.

One call at a time uses the terminal; others wait their turn. A failure of ptybridge itself is an error result whose text is the ptysend CLI's, with a "hint:" line saying what to do and a "retry:" line saying whether retrying can help. Where a hint names a flag or a mode, use the tool argument or the tool: --timeout is timeout, --max-time is max_time, "ptysend -- CMD" is run, --repl-start is repl_start, --repl-eval is repl_eval, --repl-close is repl_close.`

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
	return err
}

type server struct {
	cfg   Config
	mcp   *mcp.Server
	calls sync.WaitGroup
}

func newServer(cfg Config) *server {
	s := &server{cfg: cfg}
	s.mcp = mcp.NewServer(
		&mcp.Implementation{Name: "ptybridge", Title: "ptybridge: the user's shared terminal", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: &mcp.ServerCapabilities{}})
	for _, m := range modes.All() {
		if about := m.About(); about.Tool != "" {
			s.add(reflect.TypeOf(m).Elem(), about.Tool, about.Takes)
		}
	}
	return s
}

//go:embed tools.md
var tools string

// toolNamed is the tool of that name in tools.md, under the heading
// "## NAME (HINTS): TITLE", and whether it prints JSON.
func toolNamed(name string) (*mcp.Tool, bool) {
	for _, section := range strings.Split(tools, "\n## ")[1:] {
		head, text, _ := strings.Cut(section, "\n")
		head, title, _ := strings.Cut(head, ": ")
		if tool, hints, _ := strings.Cut(head, " "); tool == name {
			has := func(hint string) bool { return strings.Contains(hints, hint) }
			a := &mcp.ToolAnnotations{Title: title, ReadOnlyHint: has("read-only"), IdempotentHint: has("idempotent"), OpenWorldHint: new(has("open-world"))}
			if !a.ReadOnlyHint {
				a.DestructiveHint = new(has("destructive"))
			}
			return &mcp.Tool{Name: name, Title: title, Description: strings.TrimSpace(text), Annotations: a}, has("prints JSON")
		}
	}
	panic("no tool " + name + " in tools.md")
}

// add adds the tool name of the mode whose struct is typ. The shared
// options a call leaves out keep the server's defaults.
func (s *server) add(typ reflect.Type, name string, takes modes.Takes) {
	def, printsJSON := toolNamed(name)
	// The input: the mode's fields, and the shared options it takes.
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
		if takes&bit != 0 {
			in.Properties[opt] = optionSchemas[opt]
		}
	}
	def.InputSchema = in
	mcp.AddTool(s.mcp, def, func(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, Result, error) {
		m := reflect.New(typ).Interface().(modes.Mode)
		opts := modes.Options{Timeout: cli.Duration(s.cfg.Timeout), MaxTime: cli.Duration(s.cfg.MaxTime), JSON: printsJSON}
		err := json.Unmarshal(req.Params.Arguments, m)
		if err == nil {
			err = json.Unmarshal(req.Params.Arguments, &opts)
		}
		if err == nil {
			err = modes.Check(m)
		}
		if err != nil {
			return result(0, &failure.Error{Msg: err.Error(), Hint: "give the arguments as the tool's input schema says"}, "", "", 0)
		}
		s.calls.Add(1)
		defer s.calls.Done()
		start := time.Now()
		stdout, stderr := newCapture(), newCapture()
		stop := notifyProgress(ctx, req, start, stdout, stderr)
		status, err := m.Run(ctx, &modes.Env{Bridge: s.cfg.Bridge, Options: opts, Stdout: stdout, Stderr: stderr})
		stop()
		return result(status, err, stdout.seal(), stderr.seal(), time.Since(start))
	})
}

// The shared options as parameters: a duration is seconds or a Go duration.
var (
	schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[cli.Duration](): {Types: []string{"number", "string"}}}}
	optionSchemas = must(jsonschema.For[modes.Options](schemaOptions)).Properties
	optionTaken   = map[string]modes.Takes{"timeout": modes.TakesLimits, "max_time": modes.TakesLimits,
		"raw": modes.TakesRaw, "wait_free": modes.TakesWaitFree}
)

func must(s *jsonschema.Schema, err error) *jsonschema.Schema {
	if err != nil {
		panic(fmt.Sprintf("a tool's input schema: %v", err))
	}
	return s
}

// Result is every tool's structured result: what the CLI would have
// printed and exited with.
type Result struct {
	Stdout     string `json:"stdout" jsonschema:"the command's standard output (for a REPL: its response, without the echoed input and prompts)"`
	Stderr     string `json:"stderr" jsonschema:"the command's standard error, then ptysend's own notes and error report as the CLI prints them"`
	ExitCode   int    `json:"exit_code" jsonschema:"the command's exit status; 124 when a timeout fired; 75 when the user was busy in the terminal and nothing was typed; 125 when ptysend itself failed"`
	TimedOut   bool   `json:"timed_out" jsonschema:"a timeout fired (exit_code 124): the command was interrupted and stdout holds the output so far"`
	DurationMS int64  `json:"duration_ms" jsonschema:"how long the call took, in milliseconds"`
	Retry      string `json:"retry,omitempty" jsonschema:"set when ptysend reported a failure or a timeout: later (75: the refusal clears by itself), with_more_time (124), after_the_hint (125: do what the hint says first), again (the call was stopped)"`
}

// result turns a mode's outcome into the tool's: the command's status,
// non-zero too, and a timeout as a normal result; a failure of ptysend
// as an error result with the CLI's report and whether retrying helps.
func result(status int, err error, stdout, stderr string, took time.Duration) (*mcp.CallToolResult, Result, error) {
	r := Result{Stdout: stdout, Stderr: stderr, ExitCode: status, DurationMS: took.Milliseconds()}
	if err == nil {
		return nil, r, nil // the SDK mirrors r as JSON text in the content
	}
	var report strings.Builder
	r.ExitCode = cli.Report(&report, "ptysend", err)
	r.Stderr += report.String()
	r.TimedOut = r.ExitCode == failure.ExitTimeout
	var why string
	r.Retry, why = retry(r.ExitCode)
	if r.TimedOut {
		return nil, r, nil
	}
	mirror, _ := json.Marshal(r) // strings and numbers
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{
			&mcp.TextContent{Text: report.String() + "retry: " + r.Retry + ": " + why + "\n"},
			&mcp.TextContent{Text: string(mirror)},
		},
	}, r, nil
}

// retry says whether retrying a failed call can help, by its exit code.
func retry(code int) (verdict, why string) {
	switch {
	case code == failure.ExitBusy:
		return "later", "nothing was typed; the user is busy in the terminal, which clears by itself: retry in a while, or ask the user as the hint says"
	case code == failure.ExitTimeout:
		return "with_more_time", "a timeout fired; if the command needs longer, retry with a larger timeout or max_time"
	case code > 128:
		return "again", "the call was stopped before it finished; run it again if you still need it"
	}
	return "after_the_hint", "retrying as it is fails the same way: first do what the message says (often: ask the user)"
}

// capture collects what a mode writes to stdout or stderr, bounded as the
// history's outputs are (the first and last parts). A stream pump closing
// down may still write as the mode returns: once sealed, writes are dropped.
type capture struct {
	mu     sync.Mutex
	buf    *relay.Buffer
	sealed bool
	note   string // the last complete write, for progress messages
}

func newCapture() *capture {
	return &capture{buf: relay.NewBuffer(relay.HistoryBound, relay.HistoryHead)}
}

// maxNote bounds a note: a longer write gives its last line.
const maxNote = 512

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sealed {
		return len(p), nil
	}
	c.buf.Write(p)
	// ptysend writes each note (the queue, a command waiting for the user) whole.
	if text := strings.TrimSpace(string(p)); text != "" && bytes.HasSuffix(p, []byte("\n")) {
		if len(text) > maxNote {
			text = text[strings.LastIndexByte(text, '\n')+1:]
			text = text[max(0, len(text)-maxNote):]
		}
		c.note = strings.ReplaceAll(text, "\n", " ")
	}
	return len(p), nil
}

func (c *capture) seal() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sealed = true
	return string(c.buf.Render(func(left int64) string {
		return fmt.Sprintf("[ptybridge: %d bytes left out here: a result keeps the first and last %d KiB]\n", left, relay.HistoryHead>>10)
	}))
}

// progress is how many bytes were written so far, and the last note.
func (c *capture) progress() (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int(c.buf.Total()), c.note
}

// notifyProgress tells a client that asked (a progress token), every second
// while a call runs, the time elapsed, the bytes of stdout so far, and
// ptysend's last note on stderr, such as a command waiting for input.
func notifyProgress(ctx context.Context, req *mcp.CallToolRequest, start time.Time, stdout, stderr *capture) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				elapsed := time.Since(start)
				out, _ := stdout.progress()
				msg := fmt.Sprintf("running for %v, %d bytes of output so far", elapsed.Round(time.Second), out)
				if _, note := stderr.progress(); note != "" {
					msg += "; " + note
				}
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: elapsed.Seconds(), Message: msg})
			}
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}
