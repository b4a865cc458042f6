package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridgetest"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// measureFar times calls in a far shell, over ssh to localhost, against
// the bare reference over the same ssh: send-keys types the command and a
// `tmux wait-for -S` that the far shell runs (reaching the private tmux
// server through the socket path), and wait-for waits for it. The far end
// is an sshd the benchmark starts (as the e2e tests do), so it needs root
// and sshd; without them it says why it measured nothing.
func measureFar(w *world, cfg config, progress io.Writer) ([]*comparison, string, error) {
	if os.Geteuid() != 0 {
		return nil, "needs root, to start sshd", nil
	}
	srv, err := bridgetest.StartSSHD("PasswordAuthentication no\n")
	if err != nil {
		return nil, err.Error(), nil
	}
	defer srv.Close()
	w.human.Type(srv.Command("root") + "\r")
	defer func() {
		w.human.Type("exit\r")
		w.settle()
	}()
	// The first call probes the far shell and installs its hooks.
	deadline := time.Now().Add(hangGuard)
	for {
		r, err := w.ptysend("--", "true")
		if err != nil {
			return nil, "", err
		}
		if _, err := w.farShell(); r.code == 0 && err == nil {
			break
		}
		if time.Now().After(deadline) {
			return nil, "", fmt.Errorf("ptysend over ssh never ran: %s", r.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	farPID, err := w.farShell()
	if err != nil {
		return nil, "", err
	}
	settle := func(f func(int) (sample, error)) func(int) (sample, error) {
		return func(round int) (sample, error) {
			if err := w.settleFar(farPID); err != nil {
				return sample{}, err
			}
			return f(round)
		}
	}
	fmt.Fprintf(progress, "trivial call over ssh: %d rounds...\n", cfg.Trivial)
	trivial := &comparison{
		title:  "trivial call over ssh to localhost",
		a:      &series{name: "ptysend -- true (far shell)"},
		b:      &series{name: "bare: send-keys 'true; tmux wait-for -S C' (run far) + wait-for C"},
		target: 1.5,
	}
	err = alternate(cfg.Trivial, cfg.Warmup, trivial.a, trivial.b,
		settle(func(int) (sample, error) { return w.ptysendExpect("", "--", "true") }),
		settle(func(i int) (sample, error) { return w.bareFar("true", i+2_000_000) }))
	if err != nil {
		return nil, "", err
	}
	seq := fmt.Sprintf("seq 1 %d", cfg.SeqLines)
	want := seqOutput(cfg.SeqLines)
	fmt.Fprintf(progress, "large output over ssh (%s): %d rounds...\n", seq, cfg.Large)
	large := &comparison{
		title:  fmt.Sprintf("large output over ssh to localhost (%s)", seq),
		a:      &series{name: "ptysend -- " + seq + " (far shell)"},
		b:      &series{name: "bare: send-keys '" + seq + "; tmux wait-for -S C' (run far) + wait-for C"},
		target: 2.0,
	}
	err = alternate(cfg.Large, cfg.Warmup, large.a, large.b,
		settle(func(int) (sample, error) { return w.ptysendExpect(want, "--", seq) }),
		settle(func(i int) (sample, error) { return w.bareFar(seq, i+3_000_000) }))
	if err != nil {
		return nil, "", err
	}
	return []*comparison{trivial, large}, "", nil
}

// bareFar is bare with the signal sent from the far shell, whose
// environment does not lead to the private tmux server by itself.
func (w *world) bareFar(command string, round int) (sample, error) {
	return w.bareSignal(command, "TMUX_TMPDIR="+w.dir+" tmux", round)
}

// farShell is the far shell's pid, as its first call recorded it (ssh to
// localhost: the same pid namespace).
func (w *world) farShell() (int, error) {
	b, err := os.ReadFile(filepath.Join(w.dir, "rt", w.name+".far.json"))
	if err != nil {
		return 0, err
	}
	var rec struct {
		PID int `json:"pid"`
	}
	if err := json.Unmarshal(b, &rec); err != nil || rec.PID <= 0 {
		return 0, fmt.Errorf("no far shell recorded: %s", b)
	}
	return rec.PID, nil
}

// settleFar waits, untimed, until the far shell is back in the
// foreground of its own terminal.
func (w *world) settleFar(pid int) error {
	deadline := time.Now().Add(hangGuard)
	for {
		fg, err := platform.ForegroundPID(pid)
		if err == nil && fg == pid {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the far shell did not come back to the foreground (tpgid %d, %v)", fg, err)
		}
		time.Sleep(time.Millisecond)
	}
}
