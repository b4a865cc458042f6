package remote

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
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

// Words are the remote words that run the host's ptysend with the command line argv.
func (r *Record) Words(argv ...string) []string {
	js, _ := json.Marshal(argv)
	return []string{r.Ptysend, ArgvFlag, hex.EncodeToString(js)}
}

// Forward runs ptysend's command line args (without the session, which it adds) on the host's
// bridge, with the host's ptysend over the master: its stdout, stderr and exit status are the
// call's. With forwardStdin, ptysend's stdin goes to it; otherwise it gets none (ssh -n). A
// stoppable call (one that runs or waits on something) is stopped on the host when ptysend is
// (stop.go). ssh's own failures (no master, the master lost) are *failure.Errors.
func Forward(r *Record, args []string, stoppable, forwardStdin bool) (int, error) {
	if err := r.Connected(); err != nil {
		return 0, err
	}
	argv := append([]string{"--session", r.Name}, args...)
	var id string
	if stoppable {
		newID, err := markers.NewID()
		if err != nil {
			return 0, err
		}
		id = string(newID)
		argv = append([]string{CallFlag, id}, argv...)
	}
	cmd := r.Command(OverMaster(!forwardStdin), r.Words(argv...)...)
	if forwardStdin {
		cmd.Stdin = os.Stdin
	}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)
	if err := cmd.Start(); err != nil {
		return 0, &failure.Error{Msg: "running ssh: " + err.Error(), Hint: "check that ssh (or PTYBRIDGE_SSH) is installed and on PATH"}
	}
	go func() {
		// The first signal stops the host's call, which then ends as a local one does; ssh ends
		// with it. A second one, or a stop that cannot reach the host, ends ssh here.
		first := true
		for s := range signals {
			if first && id != "" && r.stopOnHost(id, s.(syscall.Signal)) == nil {
				first = false
				continue
			}
			cmd.Process.Signal(s)
		}
	}()
	err := cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case !errors.As(err, &exit):
		return 0, err
	case exit.ExitCode() == 255 && !r.MasterAlive():
		return 0, r.Lost()
	case exit.ExitCode() < 0: // killed by a signal
		return 128 + int(exit.Sys().(syscall.WaitStatus).Signal()), nil
	}
	return exit.ExitCode(), nil
}

// stopOnHost sends sig to the host's call id, over the master.
func (r *Record) stopOnHost(id string, sig syscall.Signal) error {
	return r.Command(OverMaster(true), r.Words(StopFlag, id, strconv.Itoa(int(sig)))...).Run()
}

// Connected says whether the master answers, as a refusal that can succeed later when it does
// not: the user's ptybridge --host ended or lost its connection, and the host's session lingers
// with nobody watching it. (A dial of the control socket: no process started.)
func (r *Record) Connected() error {
	if c, err := platform.DialUnix(r.Socket); err == nil {
		c.Close()
		return nil
	}
	return &failure.Error{
		Code: failure.ExitBusy,
		Msg: fmt.Sprintf("no connection to %s is open: the user's ptybridge --host %s has ended or lost its connection, "+
			"so nobody watches the shared terminal %s, which lingers on the host; nothing was typed", r.Dest, r.Dest, r.Name),
		Hint: fmt.Sprintf("ask the user to run ptybridge --host %s again (it reattaches the session as it was), then retry", r.Dest),
	}
}

// Lost is the failure of a call whose connection dropped while it ran.
func (r *Record) Lost() error {
	return &failure.Error{
		Msg: "the connection to " + r.Dest + " is down (its ssh master ended); a command that had started goes on on the host, in the session " + r.Name,
		Hint: fmt.Sprintf("ask the user to run ptybridge --host %s again (it reattaches the same session); "+
			"then ptysend --session %s --history lists the commands and --output=ID shows what one printed", r.Dest, r.Name),
	}
}
