// Package mcpserver is ptysend --mcp: the shared terminal served to an
// agent as Model Context Protocol tools over stdin and stdout, built on the
// official Go SDK (github.com/modelcontextprotocol/go-sdk). It owns the
// tool table (names, descriptions, input and output schemas, annotations),
// turning a tool call into the request of a ptysend mode (internal/session,
// internal/repl) and the mode's outcome into a tool result, the progress
// notifications of a long call, and cancelling a call when the client
// cancels its request. It runs in a program of its own, cmd/ptysend-mcp,
// which ptysend --mcp execs: linked into ptysend, the SDK would make every
// call slower and bigger.
//
// It must not drive the pane, the relay or tmux itself: every tool runs the
// very code of its CLI mode, so that the contract is one. It must not word
// a failure differently from the CLI (internal/cli.Report prints it), nor
// write anything to stdout but protocol messages.
package mcpserver
