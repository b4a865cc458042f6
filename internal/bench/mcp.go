package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// measureMCP times the run tool of a running `ptysend --mcp` on `true`
// against `ptysend -- true`, alternating. The server is started, and the
// SDK's client connected, before the rounds: what counts is a call once
// the agent's server runs, from the request to the response.
func measureMCP(w *world, cfg config) (*comparison, error) {
	cs, err := w.startMCP()
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	c := &comparison{
		title:  "MCP run (ptysend --mcp already running)",
		a:      &series{name: "MCP tools/call run {\"command\": \"true\"}"},
		b:      &series{name: "ptysend -- true"},
		target: 1.2,
	}
	err = alternate(cfg.MCP, cfg.Warmup, c.a, c.b,
		settled(w, func(int) (sample, error) { return w.mcpRun(cs, "true", "") }),
		settled(w, func(int) (sample, error) { return w.ptysendExpect("", "--", "true") }))
	return c, err
}

// startMCP starts ptysend --mcp on the world's bridge and connects the Go
// SDK's client to it over stdio.
func (w *world) startMCP() (*mcp.ClientSession, error) {
	cmd := exec.Command(filepath.Join(w.bin, "ptysend"), "--mcp")
	cmd.Env = w.env
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "ptybridge-bench", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to ptysend --mcp: %w", err)
	}
	return cs, nil
}

// mcpRun calls the run tool with command and checks that it printed
// exactly want and exited 0: the benchmark never times a broken call.
func (w *world) mcpRun(cs *mcp.ClientSession, command, want string) (sample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	params := &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"command": command}}
	t0 := time.Now()
	res, err := cs.CallTool(ctx, params)
	elapsed := time.Since(t0)
	if err != nil {
		return sample{}, fmt.Errorf("MCP run %q: %w", command, err)
	}
	var r struct {
		Stdout   string `json:"stdout"`
		Stderr   string `json:"stderr"`
		ExitCode int    `json:"exit_code"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &r); err != nil || res.IsError || r.ExitCode != 0 || r.Stdout != want || r.Stderr != "" {
		return sample{}, fmt.Errorf("MCP run %q: want exit 0 and stdout %s, got %s", command, brief(want), raw)
	}
	return sample{elapsed: elapsed}, nil
}

// hasMCP reports whether this ptysend serves MCP.
func hasMCP(w *world) bool {
	out, _ := exec.Command(filepath.Join(w.bin, "ptysend"), "--help").CombinedOutput()
	return strings.Contains(string(out), "--mcp")
}
