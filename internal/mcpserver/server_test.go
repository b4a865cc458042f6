package mcpserver

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptybridge/ptybridge/internal/failure"
)

func TestACommandThatFailsIsAResultNotAnError(t *testing.T) {
	s := newServer(Config{})
	res := s.commandReply(ran{tool: "run", status: 3, stdout: sealed{text: "out\n"}, stderr: sealed{text: "err\n"},
		notes: "ptysend: waiting: another call holds the shared terminal\n", took: time.Second, maxBytes: maxBytesDefault}, nil)
	c := structured(t, res)
	if res.IsError || c["exit_code"] != 3.0 || c["stdout"] != "out\n" || c["stderr"] != "err\n" || c["retry"] != nil {
		t.Fatalf("a non-zero exit: got %v %v", res.IsError, c)
	}
	if notes := c["notes"].([]any); len(notes) != 1 || notes[0] != "waiting: another call holds the shared terminal" {
		t.Errorf("the notes are apart from the command's stderr: %v", c["notes"])
	}
}

func TestATimeoutIsAnErrorWithTheOutputSoFar(t *testing.T) {
	s := newServer(Config{})
	timeout := &failure.Error{Code: failure.ExitTimeout, Msg: "no output for 1s (--timeout): interrupted it with Ctrl-C",
		Hint: "if the command is slow but quiet, rerun it with a larger --timeout, e.g. --timeout 60"}
	res := s.commandReply(ran{tool: "run", err: timeout, stdout: sealed{text: "so far\n"}, took: time.Second, maxBytes: maxBytesDefault}, nil)
	c := structured(t, res)
	f := c["failure"].(map[string]any)
	if !res.IsError || c["timed_out"] != true || c["exit_code"] != 124.0 || c["retry"] != "with_more_time" || c["stdout"] != "so far\n" {
		t.Fatalf("a timeout: got %v", c)
	}
	if f["message"] != "no output for 1s (timeout): interrupted it with Ctrl-C" ||
		f["hint"] != "if the command is slow but quiet, rerun it with a larger timeout, e.g. timeout: 60" {
		t.Errorf("the report speaks of the tool's parameters: %v", f)
	}
}

func TestRetrySaysWhatHelps(t *testing.T) {
	s := newServer(Config{})
	for code, verdict := range map[int]string{0: "after_the_hint", failure.ExitBusy: "later", failure.ExitRefused: "after_the_hint", 130: "again"} {
		err := &failure.Error{Code: code, Msg: "the user is busy", Hint: "ask the user"}
		res := s.dataReply(ran{tool: "status", err: err})
		c := structured(t, res)
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || c["retry"] != verdict || !strings.HasPrefix(text, "error: the user is busy\nhint: ask the user\nretry: "+verdict+": ") {
			t.Errorf("code %d: got %v, %q", code, c, text)
		}
	}
}

func TestLongOutputKeepsItsHeadAndTail(t *testing.T) {
	s := newServer(Config{})
	out := strings.Repeat("h", 5000) + strings.Repeat("m", 100000) + strings.Repeat("t", 5000)
	res := s.commandReply(ran{tool: "run", stdout: sealed{text: out}, maxBytes: 4096}, nil)
	c := structured(t, res)
	stdout := c["stdout"].(string)
	if !strings.HasPrefix(stdout, strings.Repeat("h", 2048)+"\n[ptybridge: ") || !strings.HasSuffix(stdout, "]\n"+strings.Repeat("t", 2048)) ||
		c["truncated_bytes"] != float64(len(out)-4096) {
		t.Errorf("got %d bytes, truncated_bytes %v: %.80q...%.80q", len(stdout), c["truncated_bytes"], stdout, stdout[len(stdout)-80:])
	}
	if text := res.Content[0].(*mcp.TextContent).Text; len(text) > textBound+100 {
		t.Errorf("the text is a short rendering, got %d bytes", len(text))
	}
	// What the capture already left out counts, and its seam is where the cut goes.
	got, left := bound("HEAD"+"TAIL", 4, 1000, 1<<20, "x")
	if left != 1000 || !strings.HasPrefix(got, "HEAD\n[ptybridge: 1000 bytes left out") || !strings.HasSuffix(got, "]\nTAIL") {
		t.Errorf("a capture's cut: got %q, %d", got, left)
	}
	// A character is never cut in two.
	if got, _ := bound(strings.Repeat("é", 3000), 0, 0, 1001, "x"); !utf8.ValidString(got) {
		t.Errorf("bound cut a character: %q", got)
	}
}

// structured is a result's structured content, as a client decodes it.
func structured(t *testing.T, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	var c map[string]any
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestToolsAreListedWithSchemasAndAnnotations(t *testing.T) {
	ctx := context.Background()
	s := newServer(Config{Timeout: 10 * time.Second, MaxTime: 2 * time.Minute})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.mcp.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every tool of tools.md is a mode's (and newServer found every
	// mode's tool there).
	if want := strings.Count(tools, "\n## "); len(list.Tools) != want {
		t.Fatalf("want %d tools, got %d", want, len(list.Tools))
	}
	for _, tool := range list.Tools {
		in, _ := tool.InputSchema.(map[string]any)
		out, _ := tool.OutputSchema.(map[string]any)
		a := tool.Annotations
		switch {
		case !regexp.MustCompile(`^[a-z_]{1,40}$`).MatchString(tool.Name):
			t.Errorf("tool name %q", tool.Name)
		case len(tool.Description) < 100 || tool.Title == "":
			t.Errorf("%s: a title and a description an agent can act on, please", tool.Name)
		case in["type"] != "object" || out["type"] != "object":
			t.Errorf("%s: input and output schemas: %v %v", tool.Name, in, out)
		case a == nil || a.OpenWorldHint == nil:
			t.Errorf("%s: annotations %+v", tool.Name, a)
		case a.ReadOnlyHint != slices.Contains([]string{"screen", "status", "history", "output", "jobs", "job_output", "job_wait", "job_screen", "sessions"}, tool.Name):
			t.Errorf("%s: readOnlyHint %v", tool.Name, a.ReadOnlyHint)
		case !a.ReadOnlyHint && a.DestructiveHint == nil:
			t.Errorf("%s: a tool that changes something says whether it destroys: %+v", tool.Name, a)
		}
		// Every result may say how the call went, and nothing in it is required: a failed call has
		// only that.
		outProps, _ := out["properties"].(map[string]any)
		retry, _ := outProps["retry"].(map[string]any)
		if outProps["notes"] == nil || outProps["failure"] == nil || len(retry["enum"].([]any)) != 4 || out["required"] != nil {
			t.Errorf("%s: the output schema lacks the outcome: %v", tool.Name, out)
		}
		// A required parameter cannot be null (job_keys' keys was ["null", "array"]).
		props, _ := in["properties"].(map[string]any)
		required, _ := in["required"].([]any)
		if _, ok := props["session"]; !ok {
			t.Errorf("%s: no session parameter", tool.Name)
		}
		for _, name := range required {
			p, _ := props[name.(string)].(map[string]any)
			if types, _ := p["type"].([]any); slices.Contains(types, any("null")) {
				t.Errorf("%s: the required %s may be null: %v", tool.Name, name, p)
			}
		}
	}
	// A call without its required argument is refused before it runs.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "repl_eval", Arguments: map[string]any{}})
	if err != nil || !res.IsError {
		t.Fatalf("repl_eval without expr: got %+v, %v", res, err)
	}
}
