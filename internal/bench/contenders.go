package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// sample is one timed run.
type sample struct {
	elapsed time.Duration
}

// ptysendRun is what one ptysend process did.
type ptysendRun struct {
	sample
	stdout, stderr string
	code           int
}

// ptysend runs ptysend with args (stdin /dev/null, like an agent's tool
// call) and times it from before the process starts to its exit.
func (w *world) ptysend(args ...string) (ptysendRun, error) {
	cmd, cancel := w.command(filepath.Join(w.bin, "ptysend"), args...)
	defer cancel()
	var stdout, stderr bytes.Buffer
	stdout.Grow(4 << 20)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	err := cmd.Run()
	elapsed := time.Since(t0)
	r := ptysendRun{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		return r, fmt.Errorf("ptysend %q did not run: %v", args, err)
	}
	r.elapsed = elapsed
	return r, nil
}

// peakRSS runs ptysend with args once, checks that it printed exactly want,
// and returns its peak resident memory in bytes.
//
// The figure is the max RSS of the process's rusage, but ptysend is started
// through GNU time: Go starts children with vfork (CLONE_VM), and Linux
// carries the high-water RSS of the address space a process had before
// exec into its max RSS, so a child started by this benchmark would report
// at least the benchmark's own RSS (some 17 MiB, holding the expected
// output) instead of ptysend's. GNU time forks from a small C process.
func (w *world) peakRSS(want string, args ...string) (int64, error) {
	timeBin, err := exec.LookPath("/usr/bin/time")
	if err != nil {
		return 0, errNoGNUTime
	}
	report := filepath.Join(w.dir, "rss")
	cmd, cancel := w.command(timeBin, append([]string{"-f", "%M", "-o", report, filepath.Join(w.bin, "ptysend")}, args...)...)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stdout.String() != want || stderr.Len() > 0 {
		return 0, fmt.Errorf("ptysend %q under %s: want exit 0 and stdout %s, got %v, stdout %s, stderr %q",
			args, timeBin, brief(want), err, brief(stdout.String()), stderr.String())
	}
	b, err := os.ReadFile(report)
	if err != nil {
		return 0, err
	}
	kib, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("unexpected report from %s: %q", timeBin, b)
	}
	return kib * 1024, nil
}

var errNoGNUTime = errors.New("needs GNU time as /usr/bin/time: apt-get install time")

// ptysendExpect runs ptysend and checks that it printed exactly want and
// exited 0: the benchmark never times a broken call.
func (w *world) ptysendExpect(want string, args ...string) (sample, error) {
	r, err := w.ptysend(args...)
	if err != nil {
		return sample{}, err
	}
	if r.code != 0 || r.stdout != want || r.stderr != "" {
		return sample{}, fmt.Errorf("ptysend %q: want exit 0 and stdout %s, got exit %d, stdout %s (%s), stderr %q",
			args, brief(want), r.code, brief(r.stdout), firstDiff(want, r.stdout), r.stderr)
	}
	return r.sample, nil
}

// ptysendCheck runs ptysend and checks that it exited 0 and that its
// stdout passes ok.
func (w *world) ptysendCheck(ok func(stdout string) bool, args ...string) (sample, error) {
	r, err := w.ptysend(args...)
	if err != nil {
		return sample{}, err
	}
	if r.code != 0 || !ok(r.stdout) {
		return sample{}, fmt.Errorf("ptysend %q: got exit %d, stdout %s, stderr %q", args, r.code, brief(r.stdout), r.stderr)
	}
	return r.sample, nil
}

// bare is the reference: the least tmux needs to run a command in the
// same pane and know that it ended, returning no output. Two tmux client
// processes: send-keys types the command followed by a wait-for signal,
// and wait-for blocks until the pane signals. Timed from before send-keys
// starts to the return of wait-for. (tmux remembers a signal sent before
// anyone waits, so the order cannot deadlock.)
func (w *world) bare(command string, round int) (sample, error) {
	return w.bareSignal(command, "tmux", round)
}

// bareSignal is bare with the pane's tmux command line given.
func (w *world) bareSignal(command, tmux string, round int) (sample, error) {
	ch := fmt.Sprintf("ptybridge-bench-%d-%d", w.panePID, round)
	send, cancel1 := w.command("tmux", "send-keys", "-t", w.pane, command+"; "+tmux+" wait-for -S "+ch, "Enter")
	defer cancel1()
	wait, cancel2 := w.command("tmux", "wait-for", ch)
	defer cancel2()
	t0 := time.Now()
	if out, err := send.CombinedOutput(); err != nil {
		return sample{}, fmt.Errorf("tmux send-keys: %v: %s", err, out)
	}
	if out, err := wait.CombinedOutput(); err != nil {
		return sample{}, fmt.Errorf("tmux wait-for: %v: %s", err, out)
	}
	return sample{elapsed: time.Since(t0)}, nil
}

func brief(s string) string {
	if len(s) <= 60 {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%q...(%d bytes)", s[:40], len(s))
}

// seqOutput is what `seq 1 n` prints.
func seqOutput(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	return b.String()
}

// firstDiff shows where got first differs from want.
func firstDiff(want, got string) string {
	i := 0
	for i < len(want) && i < len(got) && want[i] == got[i] {
		i++
	}
	return fmt.Sprintf("first difference at byte %d: want %q, got %q", i,
		want[max(0, i-20):min(len(want), i+60)], got[max(0, i-20):min(len(got), i+60)])
}
