// Package attach is ptybridge --host: it opens the human's ssh ControlMaster connection to the
// host (their ssh, config, keys and agent; prompts in their terminal), makes sure the host's
// cache holds checksum-verified copies of the local binaries (cache.go), records the remote
// bridge for ptysend (internal/remote), and attaches the human's terminal to the host's
// ptybridge, which lingers when the connection drops. It links crypto (the checksums): ptysend
// must not import it.
package attach

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/remote"
	"github.com/ptybridge/ptybridge/internal/rundir"
)

// DefaultLinger is how long a remote bridge's session outlives a lost connection by default.
const DefaultLinger = 24 * time.Hour

// Options are ptybridge --host's.
type Options struct {
	Dest    string // [user@]host
	Name    string // the session; "": the host's name
	Linger  time.Duration
	Confirm bool
}

// Open opens (or reattaches) the remote bridge and attaches the human's terminal to it until
// they leave it or the connection drops.
func Open(o Options) error {
	if o.Name == "" {
		o.Name = remote.SessionName(o.Dest)
	}
	if o.Linger <= 0 {
		o.Linger = DefaultLinger
	}
	switch {
	case !remote.SafeWord(o.Dest) || o.Dest[0] == '-':
		return &failure.Error{Msg: fmt.Sprintf("the host %q has characters ptybridge --host does not pass to ssh", o.Dest),
			Hint: "give [USER@]HOST (letters, digits, . _ -), or a Host alias of your ~/.ssh/config"}
	case !remote.SafeWord(o.Name) || o.Name != remote.SessionName(o.Name):
		return &failure.Error{Msg: fmt.Sprintf("invalid session name %q for a remote bridge", o.Name),
			Hint: "a remote bridge's session name holds letters, digits, '-' and '_' only"}
	}
	dir := rundir.Path()
	if err := rundir.Ensure(dir); err != nil {
		return err
	}
	socket, err := remote.ControlSocket(dir, o.Name)
	if err != nil {
		return err
	}
	if old, ok := remote.Find(dir, o.Name); ok && old.Dest != o.Dest {
		return &failure.Error{Msg: fmt.Sprintf("the session %s is a remote bridge to %s already", o.Name, old.Dest),
			Hint: "give this one another name: ptybridge --host " + o.Dest + " --session NAME"}
	}
	r := &remote.Record{Name: o.Name, Dest: o.Dest, SSH: remote.SSHCommand(), Socket: socket, Linger: o.Linger.String()}
	started := false
	if !r.MasterAlive() {
		os.Remove(socket) // a dead master's: ssh -M would not multiplex over it
		if err := startMaster(r, o.Linger); err != nil {
			return err
		}
		started = true
	}
	cache, err := install(r, os.Stderr)
	if err != nil {
		if started {
			r.CloseMaster()
		}
		return err
	}
	r.Ptysend = cache + "/ptysend"
	if err := r.Save(dir); err != nil {
		return err
	}
	status, err := attach(r, cache+"/ptybridge", o)
	if err != nil {
		return err
	}
	switch s, found := r.Describe(); {
	case found:
		fmt.Fprintf(os.Stderr, "ptybridge: the shared terminal %s lingers on %s for %s: ptybridge --host %s returns to it\n", o.Name, o.Dest, o.Linger, o.Dest)
		return nil
	case s.State == remote.Disconnected:
		// Whatever ssh's status (255, or the host's when the master died just after): the host
		// was not asked whether the session ended, so the record stays for calls to say what to do.
		return &failure.Error{Msg: "the connection to " + o.Dest + " was lost",
			Hint: fmt.Sprintf("the shared terminal %s lingers on the host for %s with whatever runs in it: run ptybridge --host %s again to return to it", o.Name, o.Linger, o.Dest)}
	}
	// The session ended for good: so does the connection.
	r.CloseMaster()
	r.Remove(dir)
	if status != 0 {
		return &failure.Error{Msg: fmt.Sprintf("ptybridge on %s exited with status %d", o.Dest, status),
			Hint: "read its message above; run ptybridge --host " + o.Dest + " again once it is fixed"}
	}
	return nil
}

// startMaster opens the master in the human's terminal, where ssh asks what it asks, and leaves
// it in the background (-f) for ControlPersist after its last client.
func startMaster(r *remote.Record, linger time.Duration) error {
	// ServerAlive: a connection that silently died (a laptop lid, Wi-Fi) ends the master within
	// ~45 s, so that calls fail with 125 instead of waiting on it.
	cmd := r.Command([]string{"-M", "-o", "ControlPersist=" + strconv.Itoa(max(1, int(linger.Seconds()))),
		"-o", "ServerAliveInterval=15", "-o", "ServerAliveCountMax=3", "-f", "-N"})
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return &failure.Error{Msg: fmt.Sprintf("could not connect to %s: ssh exited with status %d", r.Dest, exit.ExitCode()),
			Hint: "check that ssh " + r.Dest + " works from this terminal (the host's name, your keys, the network); then run ptybridge --host " + r.Dest + " again"}
	case err != nil:
		return &failure.Error{Msg: "running ssh: " + err.Error(), Hint: "install OpenSSH's client, or set PTYBRIDGE_SSH to your ssh command"}
	}
	return nil
}

// attach runs the host's ptybridge over the master in the human's terminal (ssh -t), and
// returns ssh's exit status: the host's ptybridge's, or 255 when ssh failed.
func attach(r *remote.Record, ptybridge string, o Options) (int, error) {
	words := []string{ptybridge, "--linger", o.Linger.String(), "--session", o.Name}
	if o.Confirm {
		words = append(words, "--confirm")
	}
	cmd := r.Command([]string{"-t", "-q", "-o", "ControlMaster=no", "-o", "ProxyCommand=false"}, words...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	signal.Ignore(syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTSTP)
	defer signal.Reset(syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTSTP)
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	return 0, err
}
