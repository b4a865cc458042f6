package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// What every tool result of the e2e tests must be, whatever the tool: checked in callTool.

// outputSchemas caches each client's tools' output schemas, resolved.
var outputSchemas sync.Map // *mcp.ClientSession -> map[string]*jsonschema.Resolved

// outputSchema is the tool's output schema as the server lists it.
func (b *bridge) outputSchema(cs *mcp.ClientSession, tool string) *jsonschema.Resolved {
	b.t.Helper()
	if m, ok := outputSchemas.Load(cs); ok {
		return m.(map[string]*jsonschema.Resolved)[tool]
	}
	list, err := cs.ListTools(b.guarded(), nil)
	must(b.t, err)
	m := map[string]*jsonschema.Resolved{}
	for _, t := range list.Tools {
		raw, _ := json.Marshal(t.OutputSchema)
		var s jsonschema.Schema
		must(b.t, json.Unmarshal(raw, &s))
		r, err := s.Resolve(nil)
		must(b.t, err)
		m[t.Name] = r
	}
	outputSchemas.Store(cs, m)
	return m[tool]
}

// cliWords are what an agent that knows only the tools cannot act on: a flag of ptysend's, or
// its name (ptybridge --FLAG is what to ask the user to run, and may stay).
var cliWords = regexp.MustCompile(`ptysend|(^|[^\w-])--[a-z]`)

// commandOutput are the fields that carry a command's or a screen's own text.
var commandOutput = map[string]bool{"stdout": true, "stderr": true, "output": true, "text": true, "line": true,
	"command": true, "rows": true, "last_line": true, "command_line": true}

// checkResult checks what every result must be: its structured content valid by the tool's
// output schema; no JSON in a string; failures and notes in the tools' words.
func checkResult(t *testing.T, schema *jsonschema.Resolved, tool string, c mcpCall) {
	t.Helper()
	if schema == nil {
		t.Fatalf("%s: no output schema", tool)
	}
	if err := schema.Validate(c.fields); err != nil {
		t.Errorf("%s: the structured content does not fit the output schema: %v\n%v", tool, err, c)
	}
	if c.isError != (c.Failure != nil) || (c.Failure != nil && c.Retry == "") {
		t.Errorf("%s: isError goes with failure and retry:\n%v", tool, c)
	}
	walkStrings(c.fields, "", func(field, s string) {
		if v := strings.TrimSpace(s); !commandOutput[field] && len(v) > 1 && strings.ContainsAny(v[:1], "{[") && json.Valid([]byte(v)) {
			t.Errorf("%s: JSON inside the string %s: %q", tool, field, s)
		}
	})
	var said []string
	if c.Failure != nil {
		said = append(said, c.Failure.Message, c.Failure.Hint)
	}
	for _, s := range append(said, c.Notes...) {
		if loc := cliWords.FindStringIndex(strings.ReplaceAll(s, "ptybridge --", "ptybridge ")); loc != nil {
			t.Errorf("%s: a message speaks of the command line (%q): %q", tool, s[loc[0]:], s)
		}
	}
}

// walkStrings calls f for every string in v, with the name of the field that holds it.
func walkStrings(v any, field string, f func(field, s string)) {
	switch v := v.(type) {
	case string:
		f(field, v)
	case []any:
		for _, x := range v {
			walkStrings(x, field, f)
		}
	case map[string]any:
		for k, x := range v {
			walkStrings(x, k, f)
		}
	}
}
