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

// mcpResult is a tool's structured result, as its output schema names it.
type mcpResult struct {
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	ExitCode   int    `json:"exit_code"`
	TimedOut   bool   `json:"timed_out"`
	DurationMS int64  `json:"duration_ms"`
	Retry      string `json:"retry"`
}

// mcpCall is one tool call's result: the structured one, the text of its
// content, and whether it is an error result.
type mcpCall struct {
	mcpResult
	text    string
	isError bool
}

func (c mcpCall) String() string {
	return fmt.Sprintf("isError %v, exit %d, timed_out %v, retry %q\nstdout: %q\nstderr: %q\ntext: %q",
		c.isError, c.ExitCode, c.TimedOut, c.Retry, c.Stdout, c.Stderr, c.text)
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
	return decodeCall(b.t, res)
}

func decodeCall(t *testing.T, res *mcp.CallToolResult) mcpCall {
	t.Helper()
	c := mcpCall{isError: res.IsError}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil || json.Unmarshal(raw, &c.mcpResult) != nil {
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
	if want := []string{"history", "notify", "output", "repl_close", "repl_eval", "repl_start", "run", "screen", "status"}; !slices.Equal(names, want) {
		t.Fatalf("tools: got %v, want %v", names, want)
	}

	// stdout, stderr and the exit code apart; a non-zero exit is a result.
	r := b.callTool(cs, "run", map[string]any{"command": "echo out; echo err >&2; sh -c 'exit 3'"})
	if r.isError || r.Stdout != "out\n" || r.Stderr != "err\n" || r.ExitCode != 3 || r.TimedOut {
		t.Fatalf("want stdout, stderr and exit 3 as a normal result:\n%v", r)
	}
	if !strings.Contains(r.text, `"exit_code":3`) {
		t.Errorf("the content must mirror the result as text: %q", r.text)
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

	// A timeout: the output so far, timed_out, exit 124; the shell is usable.
	r = b.callTool(cs, "run", map[string]any{"command": "echo started; sleep 300", "timeout": "1s"})
	if r.isError || !r.TimedOut || r.ExitCode != 124 || r.Stdout != "started\n" || r.Retry != "with_more_time" ||
		!strings.Contains(r.Stderr, "ptysend: error: no output for 1s (--timeout)") {
		t.Fatalf("want a timed-out result with the output so far:\n%v", r)
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
	// A shell command while the REPL runs is refused, as by the CLI.
	if r := b.callTool(cs, "run", map[string]any{"command": "echo no"}); !r.isError || !strings.Contains(r.text, "--repl-eval") {
		t.Fatalf("run while a REPL runs: want an error naming --repl-eval:\n%v", r)
	}
	if r := b.callTool(cs, "repl_close", nil); r.isError || r.ExitCode != 0 {
		t.Fatalf("repl_close:\n%v", r)
	}
	if got := b.runTool(cs, "echo shell is back"); got != "shell is back\n" {
		t.Fatalf("after repl_close, got %q", got)
	}
}

func TestMCPFailuresOfPtysendAreErrorResultsWithTheCLIText(t *testing.T) {
	// No bridge: the CLI's message, and no retrying as it is.
	b := newWorld(t)
	cli := b.send("--", "true")
	r := b.callTool(b.mcpClient(nil), "run", map[string]any{"command": "true"})
	if !r.isError || r.ExitCode != cli.code || r.Retry != "after_the_hint" ||
		!strings.Contains(r.text, "No PTY bridge session is running") || !strings.HasPrefix(r.text, cli.stderr+"retry: after_the_hint: ") {
		t.Fatalf("no bridge: want an error result with the CLI's text (%q, exit %d):\n%v", cli.stderr, cli.code, r)
	}

	// A busy terminal: the same error and hint as the CLI, nothing typed.
	b = startBridge(t)
	cs := b.mcpClient(nil)
	human := b.terms[0]
	human.typeKeys("sleep 300\r")
	b.waitFor("the human's sleep to run", func() bool { return b.paneRuns("sleep") })
	cli = b.send("--", "echo agent")
	r = b.callTool(cs, "run", map[string]any{"command": "echo agent"})
	if !r.isError || r.ExitCode != cli.code || !strings.HasPrefix(r.text, cli.stderr+"retry: ") ||
		!strings.Contains(r.text, `"sleep"`) || !strings.Contains(r.text, "hint: ask the user") {
		t.Fatalf("busy: want an error result with the CLI's text (%q, exit %d):\n%v", cli.stderr, cli.code, r)
	}
	if strings.Contains(b.paneText(), "echo agent") {
		t.Fatalf("nothing may be typed into a busy pane:\n%s", b.paneText())
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
	r := b.callTool(cs, "screen", nil)
	if r.isError || !strings.Contains(r.Stdout, "line-of-the-file-1\n") || !strings.Contains(r.Stderr, "cursor at row") {
		t.Fatalf("screen: want less's text and the cursor:\n%v", r)
	}

	// notify shows the message on the user's screen, typing nothing.
	before := len(human.screen())
	if r := b.callTool(cs, "notify", map[string]any{"message": "please quit less"}); r.isError || r.ExitCode != 0 {
		t.Fatalf("notify:\n%v", r)
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
		r := b.callTool(cs, "history", nil)
		return !r.isError && strings.Contains(r.Stdout, "ls /nonexistent-dir") && !strings.Contains(r.Stdout, `"running":true`)
	})

	r := b.callTool(cs, "history", map[string]any{"count": 5})
	var user, agent map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var c map[string]any
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("history: a line that is no JSON object: %q", line)
		}
		switch {
		case c["who"] == "user" && strings.Contains(fmt.Sprint(c["command"]), "ls /nonexistent-dir"):
			user = c
		case c["who"] == "agent" && strings.Contains(fmt.Sprint(c["command"]), "echo from the agent"):
			agent = c
		}
	}
	if user == nil || agent == nil || fmt.Sprint(user["status"]) != "2" {
		t.Fatalf("history: want the agent's echo and the user's failing ls (status 2):\n%s", r.Stdout)
	}

	// output without an id: the user's last command, clean text.
	if r := b.callTool(cs, "output", nil); r.isError || !strings.Contains(r.Stdout, "No such file or directory") {
		t.Fatalf("output: want ls's complaint:\n%v", r)
	}
	if r := b.callTool(cs, "output", map[string]any{"id": agent["id"]}); r.isError || r.Stdout != "from the agent\n" {
		t.Fatalf("output of the agent's command:\n%v", r)
	}

	// status: free (0), then busy (75) while the user runs less.
	if r := b.callTool(cs, "status", nil); r.isError || r.ExitCode != 0 || !strings.Contains(r.Stdout, `"state"`) {
		t.Fatalf("status of a free terminal:\n%v", r)
	}
	human.typeKeys("less " + b.lessFile() + "\r")
	b.waitFor("less to run", func() bool { return b.paneCommand() == "less" })
	if r := b.callTool(cs, "status", nil); r.isError || r.ExitCode != 75 || !strings.Contains(r.Stdout, "less") {
		t.Fatalf("status with less open: want 75 naming less:\n%v", r)
	}
	human.typeKeys("q")
}
