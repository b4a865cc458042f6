package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// measureJobs times the two things a job's agent waits for, alternating
// each with its reference:
//
//   - starting a job: `ptysend --job NAME -- sleep 600`, which returns once
//     the job runs in its new window, against `ptysend -- true`. Each
//     job's window is closed after its round, untimed. Once a job runs, a
//     spare window is made for the next one in the background; a round
//     waits, untimed, until it is ready, as an agent's next job finds it.
//     The start without a spare (a session's first job) is timed apart.
//   - noticing a line: a `ptysend --job-wait NAME --until LINE` already
//     waiting on a job, from the moment the job is told to print the line
//     (a write into a fifo the job reads) to ptysend's exit with the line
//     printed, against the bare reference on the same trigger: a `tmux
//     wait-for C` already waiting, signalled from the job's window by
//     `tmux wait-for -S C`, to its exit.
func measureJobs(w *world, cfg config) ([]*comparison, error) {
	// A first job, untimed, has the first spare window made.
	if _, err := w.startJob("bench-first", false); err != nil {
		return nil, err
	}
	start := &comparison{
		title:  "job start (a spare window ready)",
		a:      &series{name: "ptysend --job NAME -- sleep 600"},
		b:      &series{name: "ptysend -- true"},
		target: 2.0,
	}
	err := alternate(cfg.Jobs, cfg.Warmup, start.a, start.b,
		settled(w, func(i int) (sample, error) { return w.startJob(fmt.Sprintf("bench-start-%d", i+cfg.Warmup), true) }),
		settled(w, func(int) (sample, error) { return w.ptysendExpect("", "--", "true") }))
	if err != nil {
		return nil, err
	}
	cold := &comparison{
		title:  "job start without a spare window (a session's first job)",
		a:      &series{name: "ptysend --job NAME -- sleep 600, making its window"},
		b:      &series{name: "ptysend -- true"},
		target: 2.0,
	}
	err = alternate(max(1, cfg.Jobs/3), 0, cold.a, cold.b,
		settled(w, func(i int) (sample, error) { return w.startJob(fmt.Sprintf("bench-cold-%d", i), false) }),
		settled(w, func(int) (sample, error) { return w.ptysendExpect("", "--", "true") }))
	if err != nil {
		return nil, err
	}

	lineFifo, bareFifo := filepath.Join(w.dir, "job-line"), filepath.Join(w.dir, "job-bare")
	for _, f := range []string{lineFifo, bareFifo} {
		if err := syscall.Mkfifo(f, 0o600); err != nil {
			return nil, err
		}
	}
	jobs := [][]string{
		{"bench-line", fmt.Sprintf("while :; do read x <'%s'; echo \"line $x\"; done", lineFifo)},
		{"bench-bare", fmt.Sprintf("while :; do read x <'%s'; tmux wait-for -S \"ptybridge-bench-job-$x\"; done", bareFifo)},
	}
	for _, j := range jobs {
		if r, err := w.ptysend("--job", j[0], "--", j[1]); err != nil || r.code != 0 {
			return nil, fmt.Errorf("starting the job %s: %v %v", j[0], err, r)
		}
	}
	notice := &comparison{
		title:  "a waiting --job-wait notices a line",
		a:      &series{name: "ptysend --job-wait NAME --until LINE, the job printing LINE"},
		b:      &series{name: "bare: wait-for C, the job running tmux wait-for -S C"},
		target: 1.0,
	}
	err = alternate(cfg.Jobs, cfg.Warmup, notice.a, notice.b,
		func(i int) (sample, error) { return w.noticeLine("bench-line", lineFifo, i+cfg.Warmup) },
		func(i int) (sample, error) { return w.bareNotice(bareFifo, i+cfg.Warmup) })
	for _, j := range jobs {
		w.ptysend("--job-stop", j[0])
	}
	if err != nil {
		return nil, err
	}
	return []*comparison{start, cold, notice}, nil
}

// startJob times ptysend --job, then closes the job's window. Before, it
// waits for a spare window, or removes it (untimed).
func (w *world) startJob(name string, spare bool) (sample, error) {
	record := filepath.Join(w.dir, "rt", w.name+".spare")
	deadline := time.Now().Add(hangGuard)
	if !spare {
		w.tmux("kill-session", "-t", "="+w.name+"-spare:")
	}
	for {
		tok, err := os.ReadFile(record)
		ready := err == nil && fileExists(filepath.Join(w.dir, "rt", w.name+".spare-"+string(tok)+".sock"))
		if ready == spare && (spare || err != nil) {
			break
		}
		if time.Now().After(deadline) {
			return sample{}, fmt.Errorf("no spare window came (or went): want one %v", spare)
		}
		time.Sleep(time.Millisecond)
	}
	r, err := w.ptysend("--job", name, "--", "sleep 600")
	if err != nil {
		return sample{}, err
	}
	if r.code != 0 || r.stdout != "" {
		return sample{}, fmt.Errorf("ptysend --job %s: exit %d, stdout %q, stderr %q", name, r.code, r.stdout, r.stderr)
	}
	if out, err := w.tmux("kill-window", "-t", "="+w.name+":="+name); err != nil {
		return sample{}, fmt.Errorf("closing the job's window: %v: %s", err, out)
	}
	return r.sample, nil
}

// noticeLine times a waiting ptysend --job-wait from the trigger of the
// line to its exit.
func (w *world) noticeLine(job, fifo string, round int) (sample, error) {
	line := fmt.Sprintf("line %d", round)
	cmd, cancel := w.command(filepath.Join(w.bin, "ptysend"), "--job-wait", job, "--until", "^"+line+"$")
	defer cancel()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return sample{}, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return sample{}, err
	}
	// Untimed: until the keeper counts it among its waiters.
	deadline := time.Now().Add(hangGuard)
	for w.waiters(job) < 1 {
		if time.Now().After(deadline) {
			return sample{}, fmt.Errorf("ptysend --job-wait %s never waited", job)
		}
		time.Sleep(time.Millisecond)
	}
	t0 := time.Now()
	if err := writeFifo(fifo, round); err != nil {
		return sample{}, err
	}
	got, _ := bufio.NewReader(stdout).ReadString('\n')
	err = cmd.Wait()
	elapsed := time.Since(t0)
	if err != nil || got != line+"\n" {
		return sample{}, fmt.Errorf("ptysend --job-wait %s: %v, stdout %q, stderr %q", job, err, got, stderr.String())
	}
	return sample{elapsed: elapsed}, nil
}

// bareNotice times a waiting tmux wait-for from the trigger to its exit.
func (w *world) bareNotice(fifo string, round int) (sample, error) {
	wait, cancel := w.command("tmux", "wait-for", fmt.Sprintf("ptybridge-bench-job-%d", round))
	defer cancel()
	if err := wait.Start(); err != nil {
		return sample{}, err
	}
	// Untimed: let the waiter reach the server. (A signal sent before it
	// waits is kept, so the order cannot deadlock, only count its start.)
	time.Sleep(20 * time.Millisecond)
	t0 := time.Now()
	if err := writeFifo(fifo, round); err != nil {
		return sample{}, err
	}
	if err := wait.Wait(); err != nil {
		return sample{}, fmt.Errorf("tmux wait-for: %v", err)
	}
	return sample{elapsed: time.Since(t0)}, nil
}

// writeFifo tells a job's loop to go on: it reads one line from fifo.
func writeFifo(fifo string, round int) error {
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%d\n", round)
	f.Close()
	return err
}

// waiters is how many clients wait on job's output, as --jobs --json says.
func (w *world) waiters(job string) int {
	r, err := w.ptysend("--jobs", "--json")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		var info struct {
			Name    string `json:"name"`
			Waiters int    `json:"waiters"`
		}
		if json.Unmarshal([]byte(line), &info) == nil && info.Name == job {
			return info.Waiters
		}
	}
	return 0
}

// hasJobs reports whether this ptysend runs jobs.
func hasJobs(w *world) bool {
	out, _ := exec.Command(filepath.Join(w.bin, "ptysend"), "--help").CombinedOutput()
	return strings.Contains(string(out), "--job-wait")
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
