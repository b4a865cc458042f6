package mcpserver

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptybridge/ptybridge/internal/failure"
)

func TestResults(t *testing.T) {
	// A command's own status, non-zero too, is a result.
	res, r, err := result(3, nil, "out\n", "err\n", time.Second)
	if err != nil || res != nil || r.ExitCode != 3 || r.Retry != "" || r.DurationMS != 1000 {
		t.Fatalf("a non-zero exit: got %v %+v %v", res, r, err)
	}
	// A timeout is a result too, with the report on stderr.
	timeout := &failure.Error{Code: failure.ExitTimeout, Msg: "no output for 1s (--timeout): interrupted it with Ctrl-C", Hint: "use a larger --timeout"}
	res, r, _ = result(failure.ExitTimeout, timeout, "so far\n", "", time.Second)
	if res != nil || !r.TimedOut || r.ExitCode != 124 || r.Retry != "with_more_time" ||
		r.Stderr != "ptysend: error: no output for 1s (--timeout): interrupted it with Ctrl-C\nhint: use a larger --timeout\n" {
		t.Fatalf("a timeout: got %v %+v", res, r)
	}
	// A failure of ptysend is an error result: the CLI's text, then retry.
	for code, verdict := range map[int]string{0: "after_the_hint", failure.ExitBusy: "later", 130: "again"} {
		busy := &failure.Error{Code: code, Msg: "the user is busy", Hint: "ask the user"}
		res, r, _ = result(0, busy, "", "", 0)
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || r.Retry != verdict || r.ExitCode != busy.ExitCode() ||
			!strings.HasPrefix(text, "ptysend: error: the user is busy\nhint: ask the user\nretry: "+verdict+": ") {
			t.Errorf("code %d: got %+v, %q", code, r, text)
		}
	}
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
		case a.ReadOnlyHint != slices.Contains([]string{"screen", "status", "history", "output", "jobs", "job_output", "job_wait", "job_screen"}, tool.Name):
			t.Errorf("%s: readOnlyHint %v", tool.Name, a.ReadOnlyHint)
		case !a.ReadOnlyHint && a.DestructiveHint == nil:
			t.Errorf("%s: a tool that changes something says whether it destroys: %+v", tool.Name, a)
		}
		// A required parameter cannot be null (job_keys' keys was ["null", "array"]).
		props, _ := in["properties"].(map[string]any)
		required, _ := in["required"].([]any)
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
