// Command ptysend-mcp is the MCP server that `ptysend --mcp` execs (found
// next to itself or on PATH), with flags ptysend passes. It is a program of
// its own so that the MCP SDK (net/http, TLS, JSON schemas) does not cost
// every ptysend call 1 ms and 4 MiB (scripts/bench).
package main

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/cli"
	"github.com/ptybridge/ptybridge/internal/mcpserver"
	"github.com/ptybridge/ptybridge/internal/rundir"
)

func main() {
	// The bridge runs one call at a time, and a call mostly waits. Under load, a (cgo) server with
	// two processors once stalled for good in the GC's mark termination, waiting for the other one
	// to reach a safe point (1 in ~50,000 calls of the soak test); with one, that cannot happen.
	runtime.GOMAXPROCS(1)
	fs := flag.NewFlagSet("ptysend-mcp", flag.ExitOnError)
	session := fs.String("session", bridge.DefaultName(), "the bridge session")
	timeout := fs.String("timeout", "10s", "the tools' default no-output timeout")
	maxTime := fs.String("max-time", "120s", "the tools' default overall timeout")
	relay := fs.String("ptysend", "", "the ptysend program, which tmux runs as the relay (default: the one next to this program)")
	version := fs.String("version", "dev", "the version told to the client")
	fs.Parse(os.Args[1:])
	if *relay == "" {
		exe, _ := os.Executable()
		*relay = filepath.Join(filepath.Dir(exe), "ptysend")
	}
	cfg := mcpserver.Config{
		Bridge:  bridge.Bridge{Name: *session, RuntimeDir: rundir.Path(), Exe: *relay},
		Version: *version,
	}
	var err error
	if cfg.Timeout, err = duration(*timeout); err == nil {
		cfg.MaxTime, err = duration(*maxTime)
	}
	if err == nil {
		err = bridge.ValidateName(*session)
	}
	if err == nil {
		err = mcpserver.ServeStdio(cfg)
	}
	if err != nil {
		os.Exit(cli.Report(os.Stderr, "ptysend", err))
	}
}

func duration(s string) (time.Duration, error) {
	var d cli.Duration
	err := d.UnmarshalText([]byte(s))
	return time.Duration(d), err
}
