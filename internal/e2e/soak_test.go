package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Soak tests: many calls through one long-lived process, whose open
// files, threads and memory must level off after a warm-up instead of
// growing with the number of calls. Kept short enough for CI.

const (
	// mcpSoakCalls run tool calls go through one ptysend --mcp server,
	// the first mcpSoakWarmUp of them before its figures are taken.
	mcpSoakCalls  = 10000
	mcpSoakWarmUp = 200
	// cliSoakCalls ptysend -- echo N calls go through one bridge's relay,
	// with a job started and stopped every cliSoakJobEvery calls; the
	// relay's figures are taken after cliSoakWarmUp of them.
	cliSoakCalls    = 2000
	cliSoakJobEvery = 100
	cliSoakWarmUp   = 200
	// soakSamples: how many times along the way the figures are taken.
	soakSamples = 10
)

// The allowances over the figures after the warm-up. A process that
// serves calls one at a time needs nothing more per call once warm:
// an fd or two may be caught in flight (a call's connection that the
// process closes a moment after answering), the Go runtime may start a
// thread or two more when a blocking system call happens to meet a busy
// moment, and the heap may grow until the collector's pace settles
// (GOGC's target doubles a small live heap). A leak of one fd, one thread
// or one buffer per call exceeds them within the first thousand calls.
const (
	soakFDAllowance      = 3
	soakThreadAllowance  = 3
	soakRSSAllowanceKiB  = 8 * 1024
	soakRSSAllowanceText = "8 MiB"
)

// procFigures are what /proc says about a process's resources.
type procFigures struct {
	fds, threads, rssKiB int
}

func (f procFigures) String() string {
	return fmt.Sprintf("%d fds, %d threads, %d KiB RSS", f.fds, f.threads, f.rssKiB)
}

func figuresOf(t *testing.T, pid int) procFigures {
	t.Helper()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatalf("the process %d is gone: %v", pid, err)
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("the process %d is gone: %v", pid, err)
	}
	f := procFigures{fds: len(fds)}
	for _, line := range strings.Split(string(status), "\n") {
		key, value, _ := strings.Cut(line, ":")
		fields := strings.Fields(value)
		if len(fields) == 0 {
			continue
		}
		switch key {
		case "Threads":
			f.threads, _ = strconv.Atoi(fields[0])
		case "VmRSS":
			f.rssKiB, _ = strconv.Atoi(fields[0])
		}
	}
	return f
}

// soakWatch takes a process's figures along a soak and checks each
// sample after the warm-up against the warm-up's.
type soakWatch struct {
	t       *testing.T
	what    string
	pid     int
	warm    procFigures
	samples []string
}

func newSoakWatch(t *testing.T, what string, pid int) *soakWatch {
	w := &soakWatch{t: t, what: what, pid: pid, warm: figuresOf(t, pid)}
	w.samples = append(w.samples, fmt.Sprintf("after the warm-up: %v", w.warm))
	t.Logf("%s (pid %d) after the warm-up: %v", what, pid, w.warm)
	return w
}

// sample takes the figures after calls calls and fails the test when
// they have grown beyond the allowances.
func (w *soakWatch) sample(calls int) {
	w.t.Helper()
	f := figuresOf(w.t, w.pid)
	w.samples = append(w.samples, fmt.Sprintf("after %d calls: %v", calls, f))
	w.t.Logf("%s after %d calls: %v", w.what, calls, f)
	if f.fds > w.warm.fds+soakFDAllowance || f.threads > w.warm.threads+soakThreadAllowance ||
		f.rssKiB > w.warm.rssKiB+soakRSSAllowanceKiB {
		w.t.Fatalf("%s grows with the calls: allowed +%d fds, +%d threads, +%s RSS over the warm-up's figures; the figures:\n%s",
			w.what, soakFDAllowance, soakThreadAllowance, soakRSSAllowanceText, strings.Join(w.samples, "\n"))
	}
}

// mcpServer starts ptysend --mcp, connects the SDK's client, and returns
// the client, the server's pid (ptysend --mcp execs ptysend-mcp, so the
// server is the process ptysend was started as) and what to say when a
// call hangs: the server's goroutines and the pane.
func (b *bridge) mcpServer() (*mcp.ClientSession, int, func() string) {
	b.t.Helper()
	// The server lives for the whole test, past any one call's hang guard.
	cmd := b.user.Runs(exec.Command(filepath.Join(bin, "ptysend"), "--mcp"))
	cmd.Env = append(slices.Clip(b.env), "GOTRACEBACK=crash") // SIGQUIT shows every thread, the runtime's too
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "ptybridge-e2e-soak", Version: "1"}, nil)
	cs, err := client.Connect(b.guarded(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.t.Fatalf("connecting to ptysend --mcp: %v; its stderr: %s", err, stderr.String())
	}
	b.t.Cleanup(func() { cs.Close() })
	pid := cmd.Process.Pid
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err != nil || filepath.Base(exe) != "ptysend-mcp" {
		b.t.Fatalf("ptysend --mcp (pid %d) should have become ptysend-mcp; it runs %q (%v)", pid, exe, err)
	}
	hung := func() string {
		threads := threadStates(pid)
		syscall.Kill(pid, syscall.SIGQUIT) // Go prints every goroutine's stack
		time.Sleep(time.Second)
		var client strings.Builder
		pprof.Lookup("goroutine").WriteTo(&client, 1)
		return fmt.Sprintf("the pane:\n%s\nthe server's threads:\n%s\nthe server's stderr:\n%s\nthe client's goroutines:\n%s",
			b.paneText(), threads, stderr.String(), client.String())
	}
	return cs, pid, hung
}

func TestTenThousandMCPRunCallsLeakNothingInTheServer(t *testing.T) {
	b := startBridge(t)
	cs, pid, hung := b.mcpServer()
	call := func(n int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: map[string]any{"command": fmt.Sprintf("echo %d", n)}})
		if err != nil {
			t.Fatalf("call %d: tools/call run: %v\n%s", n, err, hung())
		}
		r := decodeCall(t, res)
		if want := fmt.Sprintf("%d\n", n); r.isError || r.ExitCode != 0 || r.Stdout != want {
			t.Fatalf("call %d: want exactly %q, exit 0:\n%v", n, want, r)
		}
	}
	start := time.Now()
	for n := 1; n <= mcpSoakWarmUp; n++ {
		call(n)
	}
	w := newSoakWatch(t, "ptysend-mcp", pid)
	every := (mcpSoakCalls - mcpSoakWarmUp) / soakSamples
	for n := mcpSoakWarmUp + 1; n <= mcpSoakCalls; n++ {
		call(n)
		if (n-mcpSoakWarmUp)%every == 0 || n == mcpSoakCalls {
			w.sample(n)
		}
	}
	t.Logf("%d calls in %v", mcpSoakCalls, time.Since(start).Round(time.Millisecond))
}

func TestTwoThousandCLICallsWithJobsLeakNothingInTheRelay(t *testing.T) {
	b := startBridge(t)
	b.run("--", "true") // the relay serves its first call
	pid := relayPID(t, b)
	call := func(n int) {
		t.Helper()
		if n%cliSoakJobEvery == 1 {
			b.run("--job", "soak", "--", fmt.Sprintf("echo job-%d; sleep 1000", n))
		}
		if r := b.send("--", fmt.Sprintf("echo %d", n)); r.code != 0 || r.stdout != fmt.Sprintf("%d\n", n) {
			t.Fatalf("call %d: want exactly %q, exit 0:\n%v", n, fmt.Sprintf("%d\n", n), r)
		}
		if n%cliSoakJobEvery == 0 {
			expectCode(t, b.send("--job-stop", "soak"), 130)
		}
	}
	start := time.Now()
	for n := 1; n <= cliSoakWarmUp; n++ {
		call(n)
	}
	w := newSoakWatch(t, "the relay", pid)
	every := (cliSoakCalls - cliSoakWarmUp) / soakSamples
	for n := cliSoakWarmUp + 1; n <= cliSoakCalls; n++ {
		call(n)
		if (n-cliSoakWarmUp)%every == 0 || n == cliSoakCalls {
			if now := relayPID(t, b); now != pid {
				t.Fatalf("after %d calls the relay (pid %d) was replaced by pid %d", n, pid, now)
			}
			w.sample(n)
		}
	}
	t.Logf("%d calls and %d jobs in %v", cliSoakCalls, cliSoakCalls/cliSoakJobEvery, time.Since(start).Round(time.Millisecond))
}

// threadStates is what the kernel says of each thread of process pid: its
// state, where it sleeps, and its system call.
func threadStates(pid int) string {
	var out strings.Builder
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	for _, t := range tasks {
		stat, _ := os.ReadFile(t + "/stat")
		wchan, _ := os.ReadFile(t + "/wchan")
		sc, _ := os.ReadFile(t + "/syscall")
		fmt.Fprintf(&out, "%s | wchan %s | syscall %s", strings.TrimSpace(string(stat)), wchan, sc)
	}
	return out.String()
}
