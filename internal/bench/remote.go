package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridgetest"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// measureSSH times the calls over ssh: in a far shell (measureFar), then on a remote bridge
// (measureRemote). Both need root and sshd; why says why nothing was measured.
func measureSSH(w *world, cfg config, progress io.Writer) ([]*comparison, string, error) {
	far, why, err := measureFar(w, cfg, progress)
	if err != nil || why != "" {
		return far, why, err
	}
	remote, err := measureRemote(w, cfg, progress)
	return append(far, remote...), "", err
}

// remoteHost is a remote bridge's host for the benchmark: root on a localhost sshd of its own,
// whose sessions get a private home, tmux server and runtime directory, and the human's
// ptybridge --host attached to it in a second terminal of the world.
type remoteHost struct {
	w       *world
	dir     string
	hostEnv []string // the host's tmux server, for tmux commands
	ssh     []string // the human's ssh command, with the master's control socket
	dest    string
	panePID int    // the host's shared shell
	close   func() // ends the master, the human's terminal, the host's tmux server and sshd
}

const remoteName = "bench-remote"

// measureRemote times calls on a remote bridge against bare ssh over the same master: a
// trivial call against `ssh -S CTL HOST true` plus a local `ptysend -- true`, and a large
// output against `ssh -S CTL HOST 'seq 1 N'`, both checked.
func measureRemote(w *world, cfg config, progress io.Writer) ([]*comparison, error) {
	h, err := openRemote(w)
	if err != nil {
		return nil, fmt.Errorf("the remote bridge: %w", err)
	}
	defer h.close()
	settle := func(f func(int) (sample, error)) func(int) (sample, error) {
		return func(round int) (sample, error) {
			if err := h.settle(); err != nil {
				return sample{}, err
			}
			if err := w.settle(); err != nil {
				return sample{}, err
			}
			return f(round)
		}
	}
	fmt.Fprintf(progress, "trivial call on a remote bridge: %d rounds...\n", cfg.Trivial)
	trivial := &comparison{
		title:  "trivial call on a remote bridge (ptybridge --host, localhost)",
		a:      &series{name: "ptysend --session " + remoteName + " -- true"},
		b:      &series{name: "bare: ssh -S CTL HOST true, then a local ptysend -- true"},
		target: 1.3,
	}
	err = alternate(cfg.Trivial, cfg.Warmup, trivial.a, trivial.b,
		settle(func(int) (sample, error) { return w.ptysendExpect("", "--session", remoteName, "--", "true") }),
		settle(func(int) (sample, error) {
			s, err := h.bareSSH("", "true")
			if err != nil {
				return s, err
			}
			l, err := w.ptysendExpect("", "--", "true")
			return sample{elapsed: s.elapsed + l.elapsed}, err
		}))
	if err != nil {
		return nil, err
	}
	seq := fmt.Sprintf("seq 1 %d", cfg.SeqLines)
	want := seqOutput(cfg.SeqLines)
	fmt.Fprintf(progress, "large output on a remote bridge (%s): %d rounds...\n", seq, cfg.Large)
	large := &comparison{
		title:  fmt.Sprintf("large output on a remote bridge (%s)", seq),
		a:      &series{name: "ptysend --session " + remoteName + " -- " + seq},
		b:      &series{name: "bare: ssh -S CTL HOST '" + seq + "'"},
		target: 1.5,
	}
	err = alternate(cfg.Large, cfg.Warmup, large.a, large.b,
		settle(func(int) (sample, error) { return w.ptysendExpect(want, "--session", remoteName, "--", seq) }),
		settle(func(int) (sample, error) { return h.bareSSH(want, seq) }))
	if err != nil {
		return nil, err
	}
	// Most of a large output's time is the terminal's (tmux's pane takes it in; bare ssh has
	// none): what the forwarding adds shows against the same call on the local bridge.
	fmt.Fprintf(progress, "large output, remote against local (%s): %d rounds...\n", seq, cfg.Large)
	forwarding := &comparison{
		title:  fmt.Sprintf("large output on a remote bridge against the local bridge (%s)", seq),
		a:      &series{name: "ptysend --session " + remoteName + " -- " + seq},
		b:      &series{name: "ptysend -- " + seq + " (the local bridge)"},
		target: 1.2,
	}
	err = alternate(cfg.Large, cfg.Warmup, forwarding.a, forwarding.b,
		settle(func(int) (sample, error) { return w.ptysendExpect(want, "--session", remoteName, "--", seq) }),
		settle(func(int) (sample, error) { return w.ptysendExpect(want, "--", seq) }))
	if err != nil {
		return nil, err
	}
	return []*comparison{trivial, large, forwarding}, nil
}

// openRemote starts sshd and has the human open the remote bridge; it returns once a call runs.
func openRemote(w *world) (*remoteHost, error) {
	h := &remoteHost{w: w, dir: filepath.Join(w.dir, "host"), dest: "root@127.0.0.1"}
	for _, sub := range []string{"home", "tmux"} {
		if err := os.MkdirAll(filepath.Join(h.dir, sub), 0o700); err != nil {
			return nil, err
		}
	}
	srv, err := bridgetest.StartSSHD(fmt.Sprintf("PasswordAuthentication no\nSetEnv HOME=%s TMUX_TMPDIR=%s PTYBRIDGE_RUNTIME_DIR=%s\n",
		filepath.Join(h.dir, "home"), filepath.Join(h.dir, "tmux"), filepath.Join(h.dir, "rt")))
	if err != nil {
		return nil, err
	}
	h.hostEnv = append(bridgetest.Env(h.dir, w.bin), "TMUX_TMPDIR="+filepath.Join(h.dir, "tmux"))
	sshCmd := fmt.Sprintf("ssh -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -i %s -p %d", srv.Key, srv.Port)
	human, err := bridgetest.Open(nil, filepath.Join(w.bin, "ptybridge"), append(w.env, "PTYBRIDGE_SSH="+sshCmd), w.dir, io.Discard,
		"--host", h.dest, "--session", remoteName)
	if err != nil {
		srv.Close()
		return nil, err
	}
	// The host's tmux server first: a session left lingering would start a timer (a shell of
	// the server's, sleeping the linger time) that outlives the server.
	closeAll := func() {
		bridgetest.Tmux(nil, h.hostEnv, "kill-server")
		human.Close(hangGuard)
		socks, _ := filepath.Glob(filepath.Join(w.dir, "rt", "ssh-*"))
		for _, s := range socks {
			exec.Command("ssh", append(strings.Fields(sshCmd)[1:], "-S", s, "-O", "exit", h.dest)...).Run()
		}
		srv.Close()
	}
	deadline := time.Now().Add(hangGuard)
	for {
		r, err := w.ptysend("--session", remoteName, "--", "true")
		socks, _ := filepath.Glob(filepath.Join(w.dir, "rt", "ssh-*"))
		out, _ := bridgetest.Tmux(nil, h.hostEnv, "display-message", "-p", "-t", "="+remoteName+":", "#{pane_pid}")
		h.panePID, _ = strconv.Atoi(strings.TrimSpace(out))
		if err == nil && r.code == 0 && len(socks) == 1 && h.panePID > 0 {
			h.ssh = append(strings.Fields(sshCmd), "-S", socks[0])
			break
		}
		if time.Now().After(deadline) {
			closeAll()
			return nil, fmt.Errorf("no call ran on it (%v): %s", err, r.stderr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	h.close = closeAll
	return h, nil
}

// bareSSH is the reference: command run by ssh over the master, its stdout checked.
func (h *remoteHost) bareSSH(want, command string) (sample, error) {
	cmd, cancel := h.w.command(h.ssh[0], append(h.ssh[1:], h.dest, command)...)
	defer cancel()
	var stdout bytes.Buffer
	stdout.Grow(4 << 20)
	cmd.Stdout = &stdout
	t0 := time.Now()
	err := cmd.Run()
	elapsed := time.Since(t0)
	if err != nil || stdout.String() != want {
		return sample{}, fmt.Errorf("ssh %s: want exit 0 and stdout %s, got %v, stdout %s", command, brief(want), err, brief(stdout.String()))
	}
	return sample{elapsed: elapsed}, nil
}

// settle waits, untimed, until the host's shell is back in the foreground of its terminal.
func (h *remoteHost) settle() error {
	deadline := time.Now().Add(hangGuard)
	for {
		fg, err := platform.ForegroundPID(h.panePID)
		if err == nil && fg == h.panePID {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the host's shell did not come back to the foreground (tpgid %d, %v)", fg, err)
		}
		time.Sleep(time.Millisecond)
	}
}
