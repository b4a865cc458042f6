package modes

import (
	"os"
	"strconv"
	"syscall"

	"github.com/ptybridge/ptybridge/internal/call"
	"github.com/ptybridge/ptybridge/internal/cli"
	"github.com/ptybridge/ptybridge/internal/remote"
	"github.com/ptybridge/ptybridge/internal/rundir"
)

// onHost reads the forwarded command line of a remote bridge's call, on its host: the words the
// local ptysend was given, with the id of a call that can be stopped (remote.CallFlag), or a stop
// of one (remote.StopFlag), which it does (done: its status).
func onHost(value string) (args []string, callID string, status int, done bool) {
	args, err := remote.DecodeArgv(value)
	if err != nil {
		return nil, "", usageError(err.Error()), true
	}
	switch {
	case len(args) >= 2 && args[0] == remote.CallFlag:
		return args[2:], args[1], 0, false
	case len(args) == 3 && args[0] == remote.StopFlag:
		sig, err := strconv.Atoi(args[2])
		if err == nil {
			err = remote.Stop(rundir.Path(), args[1], syscall.Signal(sig))
		}
		if err != nil {
			return nil, "", cli.Report(os.Stderr, "ptysend", err), true
		}
		return nil, "", 0, true
	}
	return args, "", 0, false
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
	stoppable := m.About().Takes&TakesLimits != 0
	status, err := remote.Forward(r, args, stoppable, forwardStdin)
	if err != nil {
		return cli.Report(os.Stderr, "ptysend", err)
	}
	return status
}
