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
// is left to kong: ok is false, and the modes are new.
func quickFlags(args []string) (opts Options, modes []Mode, ok bool) {
	modes = All()
	status, history, output, cmd := find[*statusMode](modes), find[*historyMode](modes), find[*outputMode](modes), find[*command](modes)
	durations := false
	// The defaults and the environment, as kong sets them.
	opts = Options{Session: os.Getenv("PTYBRIDGE_SESSION"), Timeout: cli.Duration(10 * time.Second), MaxTime: cli.Duration(120 * time.Second)}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case a == "--":
			cmd.Words = args[i:]
			i = len(args)
		case a == "--status":
			status.Status = true
		case name == "--history" && (!hasValue || value != ""):
			history.History = cli.OptionalValue{Set: true, Value: value}
		case name == "--output" && (!hasValue || value != ""):
			output.Output = cli.OptionalValue{Set: true, Value: value}
		case a == "--json":
			opts.JSON = true
		case a == "--raw":
			opts.Raw = true
		case name == "--timeout" || name == "--max-time" || name == "--wait-free":
			if !hasValue {
				if i+1 == len(args) {
					return Options{}, All(), false
				}
				i++
				value = args[i]
			}
			var d cli.Duration
			if d.UnmarshalText([]byte(value)) != nil {
				return Options{}, All(), false // kong says what is wrong
			}
			switch name {
			case "--timeout":
				opts.Timeout = d
			case "--max-time":
				opts.MaxTime = d
			default:
				opts.WaitFree = &d
			}
			durations = true
		default:
			return Options{}, All(), false
		}
	}
	if len(args) == 0 || durations && cmd.Words == nil {
		return Options{}, All(), false
	}
	return opts, modes, true
}
