package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// A stopped job's window closes, but what it printed stays readable, up to its last words,
// until a job takes its name.

func TestAStoppedJobsOutputStaysReadable(t *testing.T) {
	b := startBridge(t)
	b.run("--job", "srv", "--", `trap 'echo shutting down; echo bye >&2; exit 3' INT; echo started; echo warming >&2; while :; do sleep 0.1; done`)
	expectCode(t, b.send("--job-wait", "srv", "--until", "^warming$"), 0)
	r := b.send("--job-stop", "srv")
	expectCode(t, r, 3)
	expectStderr(t, r, "Ctrl-C (SIGINT) stopped it", "stays readable with --job-output srv")
	if exists, _ := b.jobWindow("srv"); exists {
		t.Fatal("--job-stop left the job's window")
	}

	// The terminal echoes the Ctrl-C as "^C".
	const output = "started\n^Cshutting down\n"
	r = b.send("--job-output", "srv")
	if r.code != 0 || r.stdout != output {
		t.Fatalf("its output, last words included:\n%v", r)
	}
	expectStderr(t, r, "next offset 24", "the job was stopped with exit status 3", "--job-output srv --stderr")
	if got := b.run("--job-output", "srv", "--stderr"); got != "warming\nbye\n" {
		t.Fatalf("its stderr: %q", got)
	}
	if got := b.run("--job-output", "srv", "--since", "8"); got != "^Cshutting down\n" {
		t.Fatalf("--since 8: %q", got)
	}
	var ans struct {
		Text       string
		Running    bool
		ExitStatus *int `json:"exit_status"`
	}
	if err := json.Unmarshal([]byte(b.run("--job-output", "srv", "--json")), &ans); err != nil {
		t.Fatal(err)
	}
	if ans.Text != output || ans.Running || ans.ExitStatus == nil || *ans.ExitStatus != 3 {
		t.Fatalf("--json: %+v", ans)
	}

	expectJobList(t, b, "srv", "exit 3")
	var info struct {
		StoppedBy   string `json:"stopped_by"`
		Running     bool
		ExitStatus  *int `json:"exit_status"`
		OutputBytes int  `json:"output_bytes"`
	}
	if err := json.Unmarshal([]byte(b.run("--jobs", "--json")), &info); err != nil {
		t.Fatal(err)
	}
	if info.Running || info.ExitStatus == nil || *info.ExitStatus != 3 || info.StoppedBy != "Ctrl-C (SIGINT) stopped it" || info.OutputBytes != len(output) {
		t.Fatalf("--jobs --json: %+v", info)
	}

	r = b.send("--job-wait", "srv")
	expectCode(t, r, 3)
	expectStderr(t, r, "ended with exit status 3")
	r = b.send("--job-wait", "srv", "--until", "shutting down$")
	if r.code != 0 || r.stdout != "^Cshutting down\n" {
		t.Fatalf("--job-wait --until on the kept output:\n%v", r)
	}
	r = b.send("--job-stop", "srv")
	expectCode(t, r, 3)
	expectStderr(t, r, "was stopped already")
	for _, args := range [][]string{{"--job-send", "srv", "--", "x"}, {"--job-keys", "srv", "--", "q"}, {"--job-screen", "srv"}} {
		r := b.send(args...)
		if r.code != 125 || !strings.Contains(r.stderr, "job srv was stopped (exit 3)") || !strings.Contains(r.stderr, "hint: ptysend --job-output srv") {
			t.Fatalf("%q on a stopped job:\n%v", args, r)
		}
	}

	// A job that takes the name replaces what was kept.
	b.run("--job", "srv", "--", "echo again")
	expectCode(t, b.send("--job-wait", "srv"), 0)
	if got := b.run("--job-output", "srv"); got != "again\n" {
		t.Fatalf("the new job's output: %q", got)
	}
	if n := strings.Count(b.run("--jobs"), "srv"); n != 1 {
		t.Fatalf("--jobs lists srv %d times", n)
	}
}

// Stopping a job that ended by itself closes its window, and keeps its output alike.
func TestStoppingAnEndedJobKeepsItsOutput(t *testing.T) {
	b := startBridge(t)
	b.run("--job", "done", "--", "echo finished; exit 4")
	expectCode(t, b.send("--job-wait", "done"), 4)
	r := b.send("--job-stop", "done")
	expectCode(t, r, 4)
	expectStderr(t, r, "it had ended already")
	if got := b.run("--job-output", "done"); got != "finished\n" {
		t.Fatalf("its output: %q", got)
	}
	expectJobList(t, b, "done", "exit 4")
}

// Jobs end with the bridge session: a later one of the same name has no stopped jobs.
func TestStoppedJobsEndWithTheBridgeSession(t *testing.T) {
	b := startBridge(t)
	b.run("--job", "old", "--", "echo old; sleep 1000")
	expectCode(t, b.send("--job-stop", "old"), 130)
	expectJobList(t, b, "old", "exit 130")
	b.terms[0].close()
	b.waitFor("the bridge session to end", func() bool {
		_, err := b.tmux("has-session", "-t", "="+b.name)
		return err != nil
	})
	b.openTerminal()
	b.waitReady()
	if r := b.send("--jobs"); r.stdout != "" {
		t.Fatalf("a job of the earlier session is listed:\n%v", r)
	}
	if r := b.send("--job-output", "old"); r.code != 125 || !strings.Contains(r.stderr, "no job named old") {
		t.Fatalf("--job-output of the earlier session's job:\n%v", r)
	}
}
