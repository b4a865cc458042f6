package main

import (
	"os"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/cli"
)

// quickFlags reads a command line of the read-only modes alone (--status,
// --history[=N], --output[=ID], with --json and --raw) without kong:
// building kong's model of ptysend's flags costs ~1-1.5 ms at every start,
// a third of what a --status costs in all, and the read-only modes must
// cost at most half a ptysend -- true. Anything else on the command line
// (another flag, --session, a word) is left to kong: ok is false.
func quickFlags(args []string) (f flags, ok bool) {
	if len(args) == 0 {
		return f, false
	}
	for _, a := range args {
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case a == "--status":
			f.Status.Status = true
		case name == "--history":
			f.History.History = cli.OptionalValue{Set: true, Value: value}
		case name == "--output":
			f.Output.Output = cli.OptionalValue{Set: true, Value: value}
		case a == "--json":
			f.JSON = true
		case a == "--raw":
			f.Raw = true
		default:
			return flags{}, false
		}
		if hasValue && value == "" {
			return flags{}, false // --history= is kong's to refuse
		}
	}
	// The defaults and the environment, as kong sets them.
	f.Session = os.Getenv("PTYBRIDGE_SESSION")
	f.Timeout, f.MaxTime = cli.Duration(10*time.Second), cli.Duration(120*time.Second)
	return f, true
}
