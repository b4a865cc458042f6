// Package cli is what ptybridge and ptysend share on the command line:
// the duration flag type, the hidden flags with which tmux starts the
// relay, and printing a failure in the project's style with its exit
// code. The mains hold the rest of their flags and the wiring.
package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// Duration is a flag value: a Go duration ("90s", "2m") or a bare number
// of seconds ("10", "0.5"). Zero disables the limit.
type Duration time.Duration

// UnmarshalText parses a flag value.
func (d *Duration) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs < 0 {
			return fmt.Errorf("%q is negative", s)
		}
		*d = Duration(secs * float64(time.Second))
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration: use seconds (10) or a unit (90s, 2m)", s)
	}
	if v < 0 {
		return fmt.Errorf("%q is negative", s)
	}
	*d = Duration(v)
	return nil
}

// Report prints err for the tool in the project's style ("tool: error:
// what happened", then "hint: what to do") and returns the exit code.
func Report(w io.Writer, tool string, err error) int {
	e := failure.From(err)
	if e.Verbatim != "" {
		fmt.Fprint(w, e.Verbatim)
		return e.ExitCode()
	}
	fmt.Fprintf(w, "%s: error: %s\n", tool, e.Msg)
	if e.Hint != "" {
		fmt.Fprintf(w, "hint: %s\n", e.Hint)
	}
	return e.ExitCode()
}

// RelayFlags are the hidden flags with which tmux starts the relay (see
// Bridge.relayCommand). Both tools accept them: whichever set up the
// bridge, or repaired it, runs as the relay.
type RelayFlags struct {
	Relay     string `hidden:"" help:"Internal: serve the pane's output stream on this socket."`
	RelayPane string `hidden:""`
	RelayPID  int    `hidden:""`
}

// Requested reports whether the tool was started as the relay.
func (f RelayFlags) Requested() bool { return f.Relay != "" }

// Run runs the relay on the process's standard input and output.
func (f RelayFlags) Run() error {
	return relay.Run(f.Relay, f.RelayPane, f.RelayPID, os.Stdin)
}
