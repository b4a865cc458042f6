package remote

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"github.com/ptybridge/ptybridge/internal/failure"
)

// ArgvFlag carries a forwarded command line to the host's ptysend, as JSON in hex: words that
// every login shell passes on as they are, whatever the agent's command holds (quotes, '!',
// newlines, backslashes), where quoting would depend on the host user's shell.
const ArgvFlag = "--remote-argv"

// DecodeArgv is the command line that ArgvFlag's value carries.
func DecodeArgv(value string) ([]string, error) {
	data, err := hex.DecodeString(value)
	var argv []string
	if err == nil {
		err = json.Unmarshal(data, &argv)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v", ArgvFlag, err)
	}
	return argv, nil
}

// Forward runs ptysend's command line args (without the session, which it adds) on the host's
// bridge, with the host's ptysend over the master: its stdout, stderr and exit status are the
// call's. With forwardStdin, ptysend's stdin goes to it; otherwise it gets none (ssh -n). ssh's
// own failure (255 with the master gone) is a *failure.Error.
func Forward(r *Record, args []string, forwardStdin bool, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if _, err := os.Stat(r.Socket); err != nil {
		return 0, r.disconnected("no connection to " + r.Dest + " is open: the user's ptybridge --host " + r.Dest + " has ended")
	}
	js, err := json.Marshal(append([]string{"--session", r.Name}, args...))
	if err != nil {
		return 0, err
	}
	cmd := r.Command(OverMaster(!forwardStdin), r.Ptysend, ArgvFlag, hexString(js))
	if forwardStdin {
		cmd.Stdin = stdin
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		return 0, &failure.Error{Msg: "running ssh: " + err.Error(), Hint: "check that ssh (or PTYBRIDGE_SSH) is installed and on PATH"}
	}
	// Stopping ptysend stops ssh: the host's call then loses its output (see docs/remote.md).
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	go func() {
		for s := range signals {
			cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case !errors.As(err, &exit):
		return 0, err
	case exit.ExitCode() == 255 && !r.MasterAlive():
		return 0, r.disconnected("the connection to " + r.Dest + " is down (its ssh master ended)")
	case exit.ExitCode() < 0: // killed by a signal
		return 128 + int(exit.Sys().(syscall.WaitStatus).Signal()), nil
	}
	return exit.ExitCode(), nil
}

func hexString(b []byte) string { return hex.EncodeToString(b) }

func (r *Record) disconnected(what string) error {
	return &failure.Error{
		Msg: what + "; a command that had started goes on on the host, in the session " + r.Name,
		Hint: fmt.Sprintf("ask the user to run ptybridge --host %s again (it reattaches the same session); "+
			"then ptysend --session %s --history lists the commands and --output=ID shows what one printed", r.Dest, r.Name),
	}
}
