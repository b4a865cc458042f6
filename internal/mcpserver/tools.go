package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptybridge/ptybridge/internal/cli"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/modes"
)

// tool is one MCP tool: a mode of internal/modes (its struct is the
// tool's input, with the shared options it takes) and how to add it to
// a server.
type tool struct {
	def  *mcp.Tool
	mode reflect.Type // the mode's struct
}

// tools is every mode that is a tool, in the order of modes.All.
func tools() []tool {
	var ts []tool
	for _, m := range modes.All() {
		about := m.About()
		info := about.Tool
		if info == nil {
			continue
		}
		hints := &mcp.ToolAnnotations{Title: info.Title, ReadOnlyHint: info.ReadOnly, IdempotentHint: info.Idempotent,
			OpenWorldHint: new(info.OpenWorld)}
		if !info.ReadOnly {
			hints.DestructiveHint = new(info.Destructive)
		}
		typ := reflect.TypeOf(m).Elem()
		ts = append(ts, tool{mode: typ, def: &mcp.Tool{Name: info.Name, Title: info.Title, Description: info.Description,
			Annotations: hints, InputSchema: inputSchema(typ, about.Takes)}})
	}
	return ts
}

// add adds the tool to the server: a call unmarshals its arguments into
// a new value of the mode, the shared options over the server's
// defaults, and runs it.
func (t tool) add(s *server) {
	mcp.AddTool(s.mcp, t.def, func(ctx context.Context, req *mcp.CallToolRequest, _ map[string]any) (*mcp.CallToolResult, Result, error) {
		m := reflect.New(t.mode).Interface().(modes.Mode)
		opts := modes.Options{Timeout: cli.Duration(s.cfg.Timeout), MaxTime: cli.Duration(s.cfg.MaxTime), JSON: m.About().Tool.JSON}
		args := req.Params.Arguments
		err := json.Unmarshal(args, m)
		if err == nil {
			err = json.Unmarshal(args, &opts)
		}
		if err == nil {
			err = modes.Check(m)
		}
		if err != nil {
			return result(0, &failure.Error{Msg: err.Error(), Hint: "give the arguments as the tool's input schema says"}, "", "", 0)
		}
		return s.serve(ctx, req, opts, m)
	})
}

// optionSchemas are the shared options as tool parameters, and
// durations: seconds (a number) or a Go duration (a string).
var (
	durationSchema = &jsonschema.Schema{Types: []string{"number", "string"}}
	schemaOptions  = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[cli.Duration](): durationSchema}}
	optionSchemas  = must(jsonschema.For[modes.Options](schemaOptions)).Properties
)

// optionsTaken are the option parameters of each Takes bit.
var optionsTaken = map[modes.Takes][]string{
	modes.TakesLimits:   {"timeout", "max_time"},
	modes.TakesRaw:      {"raw"},
	modes.TakesWaitFree: {"wait_free"},
}

// inputSchema is a tool's input: its mode's fields, and the shared
// options it takes.
func inputSchema(mode reflect.Type, takes modes.Takes) *jsonschema.Schema {
	s := must(jsonschema.ForType(mode, schemaOptions))
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	for bit, names := range optionsTaken {
		if takes&bit != 0 {
			for _, name := range names {
				s.Properties[name] = optionSchemas[name]
			}
		}
	}
	s.Properties = maps.Clone(s.Properties)
	return s
}

func must(s *jsonschema.Schema, err error) *jsonschema.Schema {
	if err != nil {
		panic(fmt.Sprintf("a tool's input schema: %v", err))
	}
	return s
}
