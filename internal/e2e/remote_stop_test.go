package e2e

import (
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// hostPaneRuns says whether the host's shared pane runs command in the foreground.
func (h *remoteHost) hostPaneRuns(command string) bool {
	out, err := h.tmux("display-message", "-p", "-t", "="+remoteSession+":", "#{pane_current_command}")
	return err == nil && strings.TrimSpace(out) == command
}

// Stopping the local ptysend stops the call on the host as a local call is stopped: Ctrl-C,
// then Ctrl-\ for a command that ignores Ctrl-C; ptysend exits 128+N, with the output so far.
func TestRemoteStoppingPtysendStopsTheCallOnTheHost(t *testing.T) {
	h := startRemoteHost(t)
	b := h.world()
	h.open(b)
	b.run(at("--", "cd /usr/share && export PTB_KEPT=kept")...)

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		call := b.start(false, at("--", `echo started; bash -c "trap '' INT; sleep 300"`)...)
		b.waitFor("sleep to run on the host", func() bool {
			return strings.Contains(call.stdout.String(), "started") && h.hostPaneRuns("sleep")
		})
		must(t, call.cmd.Process.Signal(sig))
		r := call.wait(t)
		if r.code != 128+int(sig) || r.stdout != "started\n" || !strings.Contains(r.stderr, "stopped by") {
			t.Fatalf("%v: want exit %d with the output so far and why, got:\n%v", sig, 128+int(sig), r)
		}
		if h.hostPaneRuns("sleep") || h.hostPaneRuns("bash -c") {
			t.Fatalf("%v: the command still runs on the host", sig)
		}
		if got := b.run(at("--", `pwd; echo "$PTB_KEPT"`)...); got != "/usr/share\nkept\n" {
			t.Fatalf("%v: after the stop, got %q", sig, got)
		}
	}
	t.Run("a stop at once, maybe before the host's call began, stops it too", func(t *testing.T) {
		call := b.start(false, at("--", "sleep 300")...)
		// Once it runs ssh, ptysend has its signals caught (a Go program dies of one before).
		b.waitFor("ptysend to run ssh", func() bool {
			kids, _ := exec.Command("pgrep", "-P", fmt.Sprint(call.cmd.Process.Pid), "ssh").Output()
			return len(strings.Fields(string(kids))) > 0
		})
		must(t, call.cmd.Process.Signal(syscall.SIGINT))
		if r := call.wait(t); r.code != 130 {
			t.Fatalf("want 130, got:\n%v", r)
		}
		// A sleep still running would hold the terminal: this call would be refused (75).
		if got := b.run(at("--", "echo free")...); got != "free\n" {
			t.Fatalf("got %q", got)
		}
	})
}

// While no connection is open (the user's ptybridge --host lost it), a call is refused with 75
// and how to have it back; a command's own 255 with the master up is the command's status.
func TestRemoteNoConnectionIs75AndAStatus255IsTheCommands(t *testing.T) {
	h := startRemoteHost(t)
	b := h.world()
	term := h.open(b)
	t.Run("a command's own 255 passes through", func(t *testing.T) {
		r := b.send(at("--", "echo own; sh -c 'exit 255'")...)
		if r.code != 255 || r.stdout != "own\n" || r.stderr != "" {
			t.Fatalf("want the command's 255 and nothing more, got:\n%v", r)
		}
	})
	must(t, syscall.Kill(masterPID(t, b, h), syscall.SIGKILL))
	term.exited(t)
	r := b.send(at("--", "echo typed")...)
	if r.code != 75 || !strings.Contains(r.stderr, "ptysend: error: no connection to "+h.dest+" is open") ||
		!strings.Contains(r.stderr, "hint: ask the user to run ptybridge --host "+h.dest+" again") {
		t.Fatalf("want 75 and the hint, got:\n%v", r)
	}
	if out, _ := h.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "="+remoteSession+":"); strings.Contains(out, "typed") {
		t.Fatal("typed while disconnected")
	}
}
