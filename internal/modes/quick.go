package modes

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
// (another flag, --session, a word) is left to kong: ok is false. The
// modes are All's either way.
func quickFlags(args []string) (opts Options, modes []Mode, ok bool) {
	modes = All()
	if len(args) == 0 {
		return opts, modes, false
	}
	var q struct {
		status          bool
		history, output cli.OptionalValue
	}
	for _, a := range args {
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case a == "--status":
			q.status = true
		case name == "--history":
			q.history = cli.OptionalValue{Set: true, Value: value}
		case name == "--output":
			q.output = cli.OptionalValue{Set: true, Value: value}
		case a == "--json":
			opts.JSON = true
		case a == "--raw":
			opts.Raw = true
		default:
			return Options{}, modes, false
		}
		if hasValue && value == "" {
			return Options{}, modes, false // --history= is kong's to refuse
		}
	}
	for _, m := range modes {
		switch m := m.(type) {
		case *statusMode:
			m.Status = q.status
		case *historyMode:
			m.History = q.history
		case *outputMode:
			m.Output = q.output
		}
	}
	// The defaults and the environment, as kong sets them.
	opts.Session = os.Getenv("PTYBRIDGE_SESSION")
	opts.Timeout, opts.MaxTime = cli.Duration(10*time.Second), cli.Duration(120*time.Second)
	return opts, modes, true
}
