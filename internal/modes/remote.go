package modes

import (
	"os"

	"github.com/ptybridge/ptybridge/internal/call"
	"github.com/ptybridge/ptybridge/internal/cli"
	"github.com/ptybridge/ptybridge/internal/remote"
	"github.com/ptybridge/ptybridge/internal/rundir"
)

// forwarded says whether mode m runs on a remote bridge's host: all but those of the command
// line itself (--sessions lists the remote bridges beside the local ones).
func forwarded(m Mode) bool {
	switch m.(type) {
	case *sessions, *skill, *mcpServer, *internal:
		return false
	}
	return true
}

// forward runs the whole command line on the host of the remote bridge r. A command whose stdin
// is not for it (/dev/null, a terminal) reads the host's shared terminal, as locally: the host's
// ptysend, whose stdin is ssh's pipe, is told so.
func forward(r *remote.Record, m Mode, args []string) int {
	// The record names the program to run (ssh): trusted only in a private runtime directory.
	if err := rundir.Ensure(rundir.Path()); err != nil {
		return cli.Report(os.Stderr, "ptysend", err)
	}
	forwardStdin := call.ForwardsStdin(os.Stdin)
	if c, ok := m.(*command); ok {
		switch {
		case c.StdinFrom == "auto" && !forwardStdin:
			args = append([]string{"--stdin=terminal"}, args...)
		case c.StdinFrom == "forward":
			forwardStdin = true
		case c.StdinFrom == "terminal":
			forwardStdin = false
		}
	}
	status, err := remote.Forward(r, args, forwardStdin, os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		return cli.Report(os.Stderr, "ptysend", err)
	}
	return status
}
