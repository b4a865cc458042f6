package modes

import (
	"os"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/cli"
)

// quickFlags reads the two most common command lines without kong: a
// command (`[--timeout D] [--max-time D] [--wait-free D] [--raw] --
// WORDS`), and the read-only modes alone (--status, --history[=N],
// --output[=ID], with --json and --raw). Building kong's model of
// ptysend's flags costs ~1-1.5 ms and ~0.7 MiB at every start: a sixth of
// a trivial call, a third of a --status. Anything else on the command line
// (another flag, --session, words without --, a value kong would refuse)
// is left to kong: ok is false. The modes are All's either way.
func quickFlags(args []string) (opts Options, modes []Mode, ok bool) {
	modes = All()
	q := quickModes{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case a == "--":
			q.words = args[i:]
			i = len(args)
		case a == "--status":
			q.status = true
		case name == "--history" && (!hasValue || value != ""):
			q.history = cli.OptionalValue{Set: true, Value: value}
		case name == "--output" && (!hasValue || value != ""):
			q.output = cli.OptionalValue{Set: true, Value: value}
		case a == "--json":
			opts.JSON = true
		case a == "--raw":
			opts.Raw = true
		case name == "--timeout" || name == "--max-time" || name == "--wait-free":
			if !hasValue {
				if i+1 == len(args) {
					return Options{}, modes, false
				}
				i++
				value = args[i]
			}
			var d cli.Duration
			if d.UnmarshalText([]byte(value)) != nil {
				return Options{}, modes, false // kong says what is wrong
			}
			q.durations = append(q.durations, quickDuration{name, d})
		default:
			return Options{}, modes, false
		}
	}
	if len(args) == 0 || len(q.durations) > 0 && q.words == nil {
		return Options{}, modes, false
	}
	// The defaults and the environment, as kong sets them.
	opts.Session = os.Getenv("PTYBRIDGE_SESSION")
	opts.Timeout, opts.MaxTime = cli.Duration(10*time.Second), cli.Duration(120*time.Second)
	for _, d := range q.durations {
		switch d.name {
		case "--timeout":
			opts.Timeout = d.value
		case "--max-time":
			opts.MaxTime = d.value
		default:
			opts.WaitFree = &d.value
		}
	}
	q.set(modes)
	return opts, modes, true
}

// quickModes are the modes' fields quickFlags read.
type quickModes struct {
	status          bool
	history, output cli.OptionalValue
	words           []string
	durations       []quickDuration
}

type quickDuration struct {
	name  string
	value cli.Duration
}

func (q quickModes) set(modes []Mode) {
	for _, m := range modes {
		switch m := m.(type) {
		case *statusMode:
			m.Status = q.status
		case *historyMode:
			m.History = q.history
		case *outputMode:
			m.Output = q.output
		case *command:
			m.Words = q.words
		}
	}
}
