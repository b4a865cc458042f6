package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/ptybridge/ptybridge/internal/cli"
	"github.com/ptybridge/ptybridge/internal/failure"
)

// mcpServerProgram is the MCP server's program (cmd/ptysend-mcp): a
// program of its own, so that the MCP SDK does not make every ptysend call
// slower and bigger.
const mcpServerProgram = "ptysend-mcp"

// execMCPServer replaces this process with the MCP server, on the same
// stdin and stdout, with the call's bridge and limits. It returns only
// when that fails.
func execMCPServer(c call) error {
	path, err := findMCPServer()
	if err != nil {
		return err
	}
	argv := []string{path,
		"--session", c.Bridge.Name,
		"--timeout", c.Timeout.String(), "--max-time", c.MaxTime.String(),
		"--ptysend", c.Bridge.Exe,
		"--version", cli.Version(),
	}
	err = syscall.Exec(path, argv, os.Environ())
	return &failure.Error{Msg: "starting the MCP server " + path + ": " + err.Error(), Hint: "check that it is an executable built with this ptysend"}
}

// findMCPServer looks next to ptysend, then on PATH.
func findMCPServer() (string, error) {
	exe, err := os.Executable()
	if err == nil {
		path := filepath.Join(filepath.Dir(exe), mcpServerProgram)
		if _, err := os.Stat(path); err == nil {
			return path, nil
		}
	}
	path, err := exec.LookPath(mcpServerProgram)
	if errors.Is(err, exec.ErrDot) {
		err = nil
	}
	if err != nil {
		return "", &failure.Error{
			Msg:  "ptysend --mcp runs " + mcpServerProgram + ", which is neither next to ptysend (" + filepath.Dir(exe) + ") nor on PATH",
			Hint: "build it with ptysend: scripts/bridge, or go install ./cmd/...",
		}
	}
	return path, nil
}
