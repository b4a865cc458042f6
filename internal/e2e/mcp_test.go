package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpResult is the fields of a command's result (run, the REPL tools), and the outcome's.
type mcpResult struct {
	Stdout         string   `json:"stdout"`
	Stderr         string   `json:"stderr"`
	ExitCode       int      `json:"exit_code"`
	TimedOut       bool     `json:"timed_out"`
	DurationMS     int64    `json:"duration_ms"`
	TruncatedBytes int64    `json:"truncated_bytes"`
	OutputID       int      `json:"output_id"`
	Error          bool     `json:"error"`
	Retry          string   `json:"retry"`
	Notes          []string `json:"notes"`
	Failure        *struct {
		Message, Hint string
		Code          int
	} `json:"failure"`
}

// mcpCall is one tool call's result: the structured one (as fields too), the text of its
// content, and whether it is an error result.
type mcpCall struct {
	mcpResult
	fields  map[string]any
	text    string
	isError bool
}

func (c mcpCall) String() string {
	b, _ := json.MarshalIndent(c.fields, "", "  ")
	return fmt.Sprintf("isError %v, structured content:\n%s\ntext: %q", c.isError, b, c.text)
}

// decode reads the structured content into v, a tool's result type.
func (c mcpCall) decode(t *testing.T, v any) {
	t.Helper()
	b, _ := json.Marshal(c.fields)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

// mcpClient starts `ptysend --mcp` in the test's world and connects the
// Go SDK's own client to it over stdio.
func (b *bridge) mcpClient(opts *mcp.ClientOptions) *mcp.ClientSession {
	b.t.Helper()
	cmd := b.ptysend(nil, "--mcp")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "ptybridge-e2e", Version: "1"}, opts)
	cs, err := client.Connect(b.guarded(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.t.Fatalf("connecting to ptysend --mcp: %v; its stderr: %s", err, stderr.String())
	}
	b.t.Cleanup(func() {
		cs.Close()
		if s := stderr.String(); s != "" {
			b.t.Errorf("ptysend --mcp wrote to stderr: %q", s)
		}
	})
	return cs
}

// guarded is a context that only the hang guard ends.
func (b *bridge) guarded() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 3*hangGuard)
	b.t.Cleanup(cancel)
	return ctx
}

// callTool calls a tool and decodes its result.
func (b *bridge) callTool(cs *mcp.ClientSession, name string, args map[string]any) mcpCall {
	b.t.Helper()
	res, err := cs.CallTool(b.guarded(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		b.t.Fatalf("tools/call %s %v: %v", name, args, err)
	}
	c := decodeCall(b.t, res)
	checkResult(b.t, b.outputSchema(cs, name), name, c)
	return c
}

func decodeCall(t *testing.T, res *mcp.CallToolResult) mcpCall {
	t.Helper()
	c := mcpCall{isError: res.IsError}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil || json.Unmarshal(raw, &c.mcpResult) != nil || json.Unmarshal(raw, &c.fields) != nil {
		t.Fatalf("no structured result: %v %s", err, raw)
	}
	if len(res.Content) == 0 {
		t.Fatal("a result without content")
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("want text content, got %T", res.Content[0])
	}
	c.text = text.Text
	return c
}

// runTool is the run tool for commands that must succeed.
func (b *bridge) runTool(cs *mcp.ClientSession, command string) string {
	b.t.Helper()
	r := b.callTool(cs, "run", map[string]any{"command": command})
	if r.isError || r.ExitCode != 0 {
		b.t.Fatalf("run %q failed:\n%v", command, r)
	}
	return r.Stdout
}

func (b *bridge) paneRuns(command string) bool {
	out, _ := b.tmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_current_command}")
	return strings.TrimSpace(out) == command
}

func TestMCPToolsRunCommandsInTheSharedTerminal(t *testing.T) {
	b := startBridge(t)
	cs := b.mcpClient(nil)

	if info := cs.InitializeResult(); info.ServerInfo.Name != "ptybridge" || !strings.Contains(info.Instructions, "the user's own terminal") {
		t.Fatalf("initialize: got %+v", info)
	}
	list, err := cs.ListTools(b.guarded(), nil)
	must(t, err)
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if !regexp.MustCompile(`^[a-z_]{1,40}$`).MatchString(tool.Name) {
			t.Errorf("tool name %q", tool.Name)
		}
		schema, _ := tool.InputSchema.(map[string]any)
		if tool.Description == "" || schema["type"] != "object" || tool.OutputSchema == nil || tool.Annotations == nil {
			t.Errorf("tool %s lacks a description, an object input schema, an output schema or annotations: %+v", tool.Name, tool)
		}
	}
	slices.Sort(names)
	if want := []string{"history", "job_keys", "job_output", "job_screen", "job_send", "job_start", "job_stop", "job_wait", "jobs", "notify", "output", "repl_close", "repl_eval", "repl_start", "run", "screen", "sessions", "status"}; !slices.Equal(names, want) {
		t.Fatalf("tools: got %v, want %v", names, want)
	}

	// stdout, stderr and the exit code apart; a non-zero exit is a result.
	r := b.callTool(cs, "run", map[string]any{"command": "echo out; echo err >&2; sh -c 'exit 3'"})
	if r.isError || r.Stdout != "out\n" || r.Stderr != "err\n" || r.ExitCode != 3 || r.TimedOut {
		t.Fatalf("want stdout, stderr and exit 3 as a normal result:\n%v", r)
	}
	if !strings.HasPrefix(r.text, "exit status 3 in ") || strings.Contains(r.text, `"exit_code"`) {
		t.Errorf("the text content is a short rendering, not the JSON again: %q", r.text)
	}
	// State persists; stdin is forwarded.
	b.runTool(cs, "cd /tmp; export MCP_VAR=kept")
	if got := b.runTool(cs, `pwd; echo "$MCP_VAR"`); got != "/tmp\nkept\n" {
		t.Fatalf("state: got %q", got)
	}
	r = b.callTool(cs, "run", map[string]any{"command": "wc -l", "stdin": "one\ntwo\n"})
	if r.Stdout != "2\n" || r.ExitCode != 0 {
		t.Fatalf("stdin: got\n%v", r)
	}

	// Clean text by default, the terminal's bytes with raw.
	colour := `printf '\033[1mbold\033[0m\n10%%\r100%%\n'`
	if got := b.runTool(cs, colour); got != "bold\n100%\n" {
		t.Fatalf("clean text: got %q", got)
	}
	r = b.callTool(cs, "run", map[string]any{"command": colour, "raw": true})
	if want := "\x1b[1mbold\x1b[0m\n10%\r100%\n"; r.Stdout != want {
		t.Fatalf("raw: want %q, got %q", want, r.Stdout)
	}

	// A timeout: an error, with the output so far, timed_out, exit 124; the shell is usable.
	r = b.callTool(cs, "run", map[string]any{"command": "echo started; sleep 300", "timeout": "1s"})
	if !r.isError || !r.TimedOut || r.ExitCode != 124 || r.Stdout != "started\n" || r.Retry != "with_more_time" ||
		!strings.HasPrefix(r.Failure.Message, "no output for 1s (timeout)") || r.Stderr != "" {
		t.Fatalf("want a timed-out error result with the output so far:\n%v", r)
	}
	if got := b.runTool(cs, "echo usable"); got != "usable\n" {
		t.Fatalf("after the timeout, got %q", got)
	}
}

func TestMCPREPLRound(t *testing.T) {
	needProgram(t, "python3")
	b := startBridge(t)
	cs := b.mcpClient(nil)
	r := b.callTool(cs, "repl_start", map[string]any{"command": "python3"})
	if r.isError || r.ExitCode != 0 || !strings.Contains(r.Stdout, "Python 3") {
		t.Fatalf("repl_start: want the banner:\n%v", r)
	}
	b.callTool(cs, "repl_eval", map[string]any{"expr": "x = 21"})
	if r := b.callTool(cs, "repl_eval", map[string]any{"expr": "def twice(n):\n    return n * 2"}); r.isError || r.Stdout != "" {
		t.Fatalf("def: got\n%v", r)
	}
	if r := b.callTool(cs, "repl_eval", map[string]any{"expr": "twice(x)"}); r.isError || r.Stdout != "42\n" {
		t.Fatalf("twice(x): got\n%v", r)
	}
	// An exception is marked: error, exit_code 1 and a note naming it; the traceback is the output.
	r = b.callTool(cs, "repl_eval", map[string]any{"expr": "1/0"})
	if r.isError || !r.Error || r.ExitCode != 1 || !strings.Contains(r.Stdout, "ZeroDivisionError: division by zero") ||
		!slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "raised an error") }) || r.Stderr != "" {
		t.Fatalf("1/0: want a marked error:\n%v", r)
	}
	if r := b.callTool(cs, "repl_eval", map[string]any{"expr": "ValueError('x')"}); r.Error || r.ExitCode != 0 {
		t.Fatalf("an exception as a value is no error:\n%v", r)
	}
	// A shell command while the REPL runs is refused, as by the CLI.
	if r := b.callTool(cs, "run", map[string]any{"command": "echo no"}); !r.isError || !strings.Contains(r.Failure.Hint, "repl_eval") {
		t.Fatalf("run while a REPL runs: want an error naming repl_eval:\n%v", r)
	}
	if r := b.callTool(cs, "repl_close", nil); r.isError || r.ExitCode != 0 {
		t.Fatalf("repl_close:\n%v", r)
	}
	if got := b.runTool(cs, "echo shell is back"); got != "shell is back\n" {
		t.Fatalf("after repl_close, got %q", got)
	}
}

func TestMCPFailuresOfPtysendAreErrorResultsInTheToolsWords(t *testing.T) {
	// No bridge: the CLI's message, and no retrying as it is.
	b := newWorld(t)
	cli := b.send("--", "true")
	r := b.callTool(b.mcpClient(nil), "run", map[string]any{"command": "true"})
	if !r.isError || r.ExitCode != cli.code || r.Failure.Code != cli.code || r.Retry != "after_the_hint" ||
		!strings.Contains(r.Failure.Message, "No PTY bridge session is running") || r.Failure.Hint == "" ||
		!strings.HasPrefix(r.text, "error: "+r.Failure.Message+"\nhint: "+r.Failure.Hint+"\nretry: after_the_hint: ") {
		t.Fatalf("no bridge: want an error result with the CLI's message (%q, exit %d):\n%v", cli.stderr, cli.code, r)
	}

	// A busy terminal: the same error and hint as the CLI, nothing typed.
	b = startBridge(t)
	cs := b.mcpClient(nil)
	human := b.terms[0]
	human.typeKeys("sleep 300\r")
	b.waitFor("the human's sleep to run", func() bool { return b.paneRuns("sleep") })
	cli = b.send("--", "echo agent")
	r = b.callTool(cs, "run", map[string]any{"command": "echo agent"})
	if !r.isError || r.ExitCode != 75 || r.Retry != "later" || !strings.Contains(r.Failure.Message, `"sleep"`) ||
		!strings.Contains(r.Failure.Hint, "ask the user") || !strings.Contains(r.Failure.Hint, `wait_free: "2m"`) {
		t.Fatalf("busy: want an error result with the CLI's message (%q), wait_free in the hint:\n%v", cli.stderr, r)
	}
	if strings.Contains(b.paneText(), "echo agent") {
		t.Fatalf("nothing may be typed into a busy pane:\n%s", b.paneText())
	}
	// Nor into it from status: busy is its answer, not an error.
	if r := b.callTool(cs, "status", nil); r.isError || r.fields["free"] != false || !strings.Contains(fmt.Sprint(r.fields["hint"]), "ask the user") {
		t.Fatalf("status of a busy terminal: want free false and a hint, no error:\n%v", r)
	}
	human.typeKeys("\x03")
	b.waitFor("the prompt to come back", func() bool { return b.send("--", "true").code == 0 })
}

func TestMCPStdoutCarriesProtocolMessagesOnly(t *testing.T) {
	b := newWorld(t) // no bridge: ptysend's longest message, addressed to the agent
	cmd := b.ptysend(nil, "--mcp")
	in, err := cmd.StdinPipe()
	must(t, err)
	out, err := cmd.StdoutPipe()
	must(t, err)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	must(t, cmd.Start())
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run","arguments":{"command":"echo hi"}}}`,
	} {
		fmt.Fprintln(in, msg)
	}
	lines := bufio.NewScanner(out)
	lines.Buffer(nil, 1<<20)
	var got []string
	for lines.Scan() {
		got = append(got, lines.Text())
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      int             `json:"id"`
			Result  json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil || m.JSONRPC != "2.0" {
			t.Fatalf("stdout carried something else than a JSON-RPC message: %q", lines.Text())
		}
		if m.ID == 2 {
			in.Close() // the client is done: the server exits
		}
	}
	io.Copy(io.Discard, out)
	must(t, cmd.Wait())
	if len(got) != 2 || !strings.Contains(got[1], `"isError":true`) {
		t.Fatalf("want the two responses, the second an error result; got %q", got)
	}
	if stderr.String() != "" {
		t.Fatalf("nothing for stderr either, got %q", stderr.String())
	}
}

// mcpClientWithProgress is mcpClient with the messages of the progress
// notifications it receives.
func (b *bridge) mcpClientWithProgress() (*mcp.ClientSession, <-chan string) {
	progress := make(chan string, 1000)
	cs := b.mcpClient(&mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			select {
			case progress <- req.Params.Message:
			default:
			}
		},
	})
	return cs, progress
}

// cancelCall calls a tool with a progress token, waits for a progress
// notification whose message passes ok (the call is under way), cancels
// the call's context and waits for the call to return.
func (b *bridge) cancelCall(cs *mcp.ClientSession, progress <-chan string, ok func(msg string) bool, name string, args map[string]any) {
	b.t.Helper()
	ctx, cancel := context.WithCancel(b.guarded())
	defer cancel()
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	params.SetProgressToken(name + "-to-cancel")
	returned := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, params)
		returned <- err
	}()
	var seen []string
	b.waitFor("a progress notification of the call to cancel", func() bool {
		select {
		case msg := <-progress:
			seen = append(seen, msg)
			return ok(msg)
		default:
			return false
		}
	})
	cancel()
	if err := <-returned; err == nil {
		b.t.Fatalf("a cancelled call must return its context's error (progress: %q)", seen)
	}
}

func TestMCPCancellationInterruptsTheCommand(t *testing.T) {
	b := startBridge(t)
	cs, progress := b.mcpClientWithProgress()
	// Progress says how long the command has run and how much it printed.
	b.cancelCall(cs, progress, func(msg string) bool {
		return strings.Contains(msg, "running for") && strings.Contains(msg, "8 bytes of output") && b.paneRuns("sleep")
	}, "run", map[string]any{"command": "echo started; sleep 300", "timeout": 0})
	b.waitFor("the cancelled command to be interrupted", func() bool { return !b.paneRuns("sleep") })
	if got := b.runTool(cs, "echo usable"); got != "usable\n" {
		t.Fatalf("after the cancellation, got %q", got)
	}
}

func TestMCPCancellationInterruptsAnEvaluationNotTheREPL(t *testing.T) {
	needProgram(t, "python3")
	b := startBridge(t)
	cs, progress := b.mcpClientWithProgress()
	if r := b.callTool(cs, "repl_start", map[string]any{"command": "python3"}); r.isError {
		t.Fatalf("repl_start:\n%v", r)
	}
	b.callTool(cs, "repl_eval", map[string]any{"expr": "x = 21"})
	b.cancelCall(cs, progress, func(string) bool { return true },
		"repl_eval", map[string]any{"expr": "import time; time.sleep(300)", "timeout": 0})
	// The next evaluation gets its turn once the cancelled one gave up the
	// sleep: Ctrl-C, not the end of the REPL and its state.
	if r := b.callTool(cs, "repl_eval", map[string]any{"expr": "x * 2"}); r.isError || r.Stdout != "42\n" {
		t.Fatalf("after the cancellation, want the REPL with its state:\n%v", r)
	}
	if !strings.Contains(b.paneText(), "KeyboardInterrupt") {
		t.Errorf("the evaluation must have been interrupted with Ctrl-C:\n%s", b.paneText())
	}
	if r := b.callTool(cs, "repl_close", nil); r.isError {
		t.Fatalf("repl_close:\n%v", r)
	}
}

func TestMCPClientGoingAwayInterruptsTheCommand(t *testing.T) {
	b := startBridge(t)
	cmd := b.ptysend(nil, "--mcp")
	in, err := cmd.StdinPipe()
	must(t, err)
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	client := mcp.NewClient(&mcp.Implementation{Name: "ptybridge-e2e", Version: "1"}, nil)
	cs, err := client.Connect(b.guarded(), &mcp.IOTransport{Reader: out, Writer: in}, nil)
	must(t, err)
	go cs.CallTool(b.guarded(), &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"command": "sleep 300", "timeout": 0}})
	b.waitFor("sleep to run in the pane", func() bool { return b.paneRuns("sleep") })
	// The agent is gone (its end of the pipe closed, as when it exits): the
	// server interrupts the command, then exits.
	in.Close()
	must(t, cmd.Wait())
	if b.paneRuns("sleep") {
		t.Fatal("the command must be interrupted before ptysend --mcp exits")
	}
	if got := b.run("--", "echo usable"); got != "usable\n" {
		t.Fatalf("got %q", got)
	}
}

func TestSkillIsPrinted(t *testing.T) {
	b := newWorld(t)
	want, err := os.ReadFile("../../skills/ptybridge/SKILL.md")
	must(t, err)
	if r := b.send("--skill"); r.code != 0 || r.stdout != string(want) {
		t.Fatalf("ptysend --skill must print skills/ptybridge/SKILL.md:\n%v", r)
	}
}

func TestMCPWithoutItsServerProgramSaysHowToBuildIt(t *testing.T) {
	b := newWorld(t)
	alone := t.TempDir()
	exe, err := os.ReadFile(filepath.Join(bin, "ptysend"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(alone, "ptysend"), exe, 0o755))
	cmd := exec.Command(filepath.Join(alone, "ptysend"), "--mcp")
	cmd.Env = append(b.env, "PATH=/usr/bin:/bin")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 125 || stdout.Len() != 0 ||
		!strings.Contains(stderr.String(), "ptysend-mcp, which is neither next to ptysend") || !strings.Contains(stderr.String(), "hint: build it") {
		t.Fatalf("want exit 125 saying where ptysend-mcp was looked for and how to build it; got %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

func TestMCPScreenAndNotifyLetTheAgentSeeAndAskTheUser(t *testing.T) {
	b := integrated(t)
	cs := b.mcpClient(nil)
	human := b.terms[0]
	human.typeKeys("less " + b.lessFile() + "\r")
	b.waitFor("less to run", func() bool { return b.paneCommand() == "less" })

	// run is refused as busy; screen shows why, typing nothing.
	if r := b.callTool(cs, "run", map[string]any{"command": "echo agent"}); !r.isError || r.ExitCode != 75 {
		t.Fatalf("run while less runs: want a busy error result (75):\n%v", r)
	}
	var screen struct {
		Rows            []string
		CursorRow       int  `json:"cursor_row"`
		AlternateScreen bool `json:"alternate_screen"`
	}
	r := b.callTool(cs, "screen", nil)
	if r.decode(t, &screen); r.isError || !slices.Contains(screen.Rows, "line-of-the-file-1") || screen.CursorRow < 1 || !screen.AlternateScreen {
		t.Fatalf("screen: want less's rows and the cursor:\n%v", r)
	}

	// notify shows the message on the user's screen, typing nothing.
	before := len(human.screen())
	if r := b.callTool(cs, "notify", map[string]any{"message": "please quit less"}); r.isError || r.fields["terminals"] != 1.0 {
		t.Fatalf("notify: want it shown in the user's one terminal:\n%v", r)
	}
	b.waitFor("the message on the human's screen", func() bool {
		return strings.Contains(human.screen()[before:], "[agent] please quit less")
	})
	if b.paneCommand() != "less" {
		t.Fatal("nothing may be typed into less")
	}
	if r := b.callTool(cs, "notify", map[string]any{"message": " "}); !r.isError {
		t.Fatalf("an empty message: want an error result:\n%v", r)
	}
	human.typeKeys("q")
}

func TestMCPStatusHistoryAndOutputShowTheUsersSide(t *testing.T) {
	b := integrated(t)
	cs := b.mcpClient(nil)
	b.runTool(cs, "echo from the agent")
	human := b.terms[0]
	human.typeKeys("ls /nonexistent-dir\r")
	b.waitFor("the user's command in the history", func() bool {
		var h struct{ Commands []map[string]any }
		b.callTool(cs, "history", nil).decode(t, &h)
		return slices.ContainsFunc(h.Commands, func(c map[string]any) bool {
			return strings.Contains(fmt.Sprint(c["command"]), "ls /nonexistent-dir") && c["running"] == false
		})
	})

	var history struct{ Commands []map[string]any }
	b.callTool(cs, "history", map[string]any{"count": 5}).decode(t, &history)
	var user, agent map[string]any
	for _, c := range history.Commands {
		switch {
		case c["who"] == "user" && strings.Contains(fmt.Sprint(c["command"]), "ls /nonexistent-dir"):
			user = c
		case c["who"] == "agent" && strings.Contains(fmt.Sprint(c["command"]), "echo from the agent"):
			agent = c
		}
	}
	if user == nil || agent == nil || user["status"] != 2.0 || user["cwd"] == "" {
		t.Fatalf("history: want the agent's echo and the user's failing ls (status 2), each with its directory:\n%v", history)
	}

	// output without an id: the user's last command, its own status, clean text.
	r := b.callTool(cs, "output", nil)
	if r.isError || r.fields["status"] != 2.0 || !strings.Contains(fmt.Sprint(r.fields["output"]), "No such file or directory") ||
		r.fields["cwd"] != user["cwd"] || r.fields["command"] != user["command"] {
		t.Fatalf("output: want ls's complaint, its status 2 and where it ran:\n%v", r)
	}
	if r := b.callTool(cs, "output", map[string]any{"id": agent["id"]}); r.isError || r.fields["output"] != "from the agent\n" {
		t.Fatalf("output of the agent's command:\n%v", r)
	}

	// status: free, then busy (an answer, not an error) while the user runs less.
	if r := b.callTool(cs, "status", nil); r.isError || r.fields["free"] != true || r.fields["state"] == "" {
		t.Fatalf("status of a free terminal:\n%v", r)
	}
	human.typeKeys("less " + b.lessFile() + "\r")
	b.waitFor("less to run", func() bool { return b.paneCommand() == "less" })
	r = b.callTool(cs, "status", nil)
	if program, _ := r.fields["program"].(map[string]any); r.isError || r.fields["free"] != false || program["name"] != "less" {
		t.Fatalf("status with less open: want busy with less:\n%v", r)
	}
	human.typeKeys("q")
}

func TestMCPJobToolsStartFollowFeedAndStopAJob(t *testing.T) {
	b := startBridge(t)
	cs := b.mcpClient(nil)
	reader := `echo ready; while read -r line; do echo "got: $line"; done`
	if r := b.callTool(cs, "job_start", map[string]any{"name": "reader", "command": reader}); r.isError || len(r.Notes) == 0 {
		t.Fatalf("job_start:\n%v", r)
	}
	r := b.callTool(cs, "job_wait", map[string]any{"name": "reader", "until": "^ready"})
	if r.isError || r.fields["matched"] != true || r.fields["line"] != "ready" || r.fields["next"] != 6.0 || r.fields["running"] != true {
		t.Fatalf("job_wait for ready:\n%v", r)
	}
	if r := b.callTool(cs, "job_send", map[string]any{"name": "reader", "text": "a $HOME `x`"}); r.isError {
		t.Fatalf("job_send:\n%v", r)
	}
	if r := b.callTool(cs, "job_wait", map[string]any{"name": "reader", "until": "got: a"}); r.isError || r.fields["matched"] != true {
		t.Fatalf("job_wait for the line it read:\n%v", r)
	}
	r = b.callTool(cs, "job_output", map[string]any{"name": "reader"})
	if r.isError || !strings.Contains(fmt.Sprint(r.fields["text"]), "got: a $HOME `x`") || r.fields["running"] != true || r.fields["next"] == 0.0 {
		t.Fatalf("job_output: want the text as typed, literally:\n%v", r)
	}
	var list struct{ Jobs []map[string]any }
	r = b.callTool(cs, "jobs", nil)
	if r.decode(t, &list); r.isError || len(list.Jobs) != 1 || list.Jobs[0]["name"] != "reader" {
		t.Fatalf("jobs:\n%v", r)
	}
	if r := b.callTool(cs, "job_screen", map[string]any{"name": "reader"}); r.isError || !slices.Contains(anyStrings(r.fields["rows"]), "ready") {
		t.Fatalf("job_screen:\n%v", r)
	}
	if r := b.callTool(cs, "job_stop", map[string]any{"name": "reader"}); r.isError || r.fields["exit_status"] == nil {
		t.Fatalf("job_stop:\n%v", r)
	}
	// What it printed stays readable.
	r = b.callTool(cs, "job_output", map[string]any{"name": "reader"})
	if r.isError || !strings.Contains(fmt.Sprint(r.fields["text"]), "got: a $HOME `x`") || r.fields["running"] != false {
		t.Fatalf("job_output of the stopped job:\n%v", r)
	}
	// A job that ends before its line: not a match, and its status.
	b.callTool(cs, "job_start", map[string]any{"name": "short", "command": "echo bye; exit 3"})
	r = b.callTool(cs, "job_wait", map[string]any{"name": "short", "until": "never printed"})
	if r.isError || r.fields["matched"] != false || r.fields["running"] != false || r.fields["exit_status"] != 3.0 {
		t.Fatalf("job_wait for a line of a job that ended without it:\n%v", r)
	}
	if r := b.callTool(cs, "job_output", map[string]any{"name": "no-such-job"}); !r.isError {
		t.Fatalf("an unknown job: want an error result:\n%v", r)
	}
}

// anyStrings is a JSON array of strings.
func anyStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

func TestMCPWaitFreeWaitsForTheUserToLeaveTheirPager(t *testing.T) {
	b := integrated(t)
	cs, progress := b.mcpClientWithProgress()
	human := b.terms[0]
	human.typeKeys("less " + b.lessFile() + "\r")
	b.waitFor("less to run", func() bool { return b.paneCommand() == "less" })
	done := make(chan mcpCall, 1)
	go func() {
		params := &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"command": "echo after the pager", "wait_free": "2m"}}
		params.SetProgressToken("wait-free")
		res, err := cs.CallTool(b.guarded(), params)
		if err != nil {
			t.Errorf("run with wait_free: %v", err)
			close(done)
			return
		}
		done <- decodeCall(t, res)
	}()
	// Progress tells the client the call waits, in the tool's words.
	b.waitFor("a progress message that the call waits for the user", func() bool {
		select {
		case msg := <-progress:
			return strings.Contains(msg, "waiting up to 2m0s (wait_free)")
		default:
			return false
		}
	})
	if b.paneCommand() != "less" || strings.Contains(b.paneText(), "after the pager") {
		t.Fatal("nothing may be typed while the user is in less")
	}
	human.typeKeys("q")
	r := <-done
	if r.isError || r.Stdout != "after the pager\n" || !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "wait_free") }) {
		t.Fatalf("want the command run once the user left less, and a note of the wait:\n%v", r)
	}
}

func TestMCPMaxBytesKeepsTheHeadAndTailAndOutputReadsOn(t *testing.T) {
	b := startBridge(t)
	cs := b.mcpClient(nil)
	r := b.callTool(cs, "run", map[string]any{"command": "seq 1 200000", "max_bytes": 4096})
	whole := len(seqText(200000))
	if r.isError || !strings.HasPrefix(r.Stdout, "1\n2\n3\n") || !strings.HasSuffix(r.Stdout, "\n199999\n200000\n") ||
		r.TruncatedBytes != int64(whole-4096) || r.OutputID == 0 || len(r.Stdout) > 4096+300 {
		t.Fatalf("want the first and last 2 KiB of %d bytes, what was left out, and the command's id; got %d bytes, truncated_bytes %d, output_id %d, isError %v: %.100q ... %.300q",
			whole, len(r.Stdout), r.TruncatedBytes, r.OutputID, r.isError, r.Stdout, r.Stdout[max(0, len(r.Stdout)-300):])
	}
	// output, from the offset where the head was cut, reads on.
	o := b.callTool(cs, "output", map[string]any{"id": r.OutputID, "offset": 2048, "max_bytes": 1024})
	if text := fmt.Sprint(o.fields["output"]); o.isError || !strings.HasPrefix(text, seqText(200000)[2048:2048+512]) || o.fields["truncated_bytes"] == nil {
		t.Fatalf("output with an offset: want what follows the cut:\n%.2000v", o)
	}
	// By default a result holds 256 KiB at most.
	r = b.callTool(cs, "run", map[string]any{"command": "seq 1 200000"})
	if len(r.Stdout) > 256<<10+300 || r.TruncatedBytes == 0 {
		t.Fatalf("want at most 256 KiB by default, got %d bytes, truncated_bytes %d", len(r.Stdout), r.TruncatedBytes)
	}
}

// seqText is what seq 1 n prints.
func seqText(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

func TestMCPSessionPicksTheBridge(t *testing.T) {
	b := startBridge(t)
	cs := b.mcpClient(nil)
	var list struct{ Sessions []map[string]any }
	b.callTool(cs, "sessions", nil).decode(t, &list)
	if len(list.Sessions) != 1 || list.Sessions[0]["name"] != b.name {
		t.Fatalf("sessions: want the one bridge %s, got %v", b.name, list)
	}
	if r := b.callTool(cs, "run", map[string]any{"command": "echo here", "session": b.name}); r.isError || r.Stdout != "here\n" {
		t.Fatalf("run with the bridge's session:\n%v", r)
	}
	if r := b.callTool(cs, "status", map[string]any{"session": "no-such-bridge"}); !r.isError || r.Retry != "after_the_hint" {
		t.Fatalf("a session with no bridge: want an error:\n%v", r)
	}
}
