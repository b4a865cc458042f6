package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// humanReaction is how long the human takes, at the quickest, to answer a
// question they see: ptysend's note must not depend on a slower human.
const humanReaction = 300 * time.Millisecond

// theTerminalAsks is ptysend's note for a question the human must answer.
func theTerminalAsks(question string) string {
	return `ptysend: the terminal asks: "` + question + `"`
}

func TestTheHumanSeesTheAgentsStderr(t *testing.T) {
	b := startBridge(t)
	r := b.send("--", "echo err >&2")
	if r.code != 0 || r.stdout != "" || r.stderr != "err\n" {
		t.Fatalf("want stderr exactly \"err\\n\" and nothing on stdout, got:\n%v", r)
	}
	// A line of its own, below the "[agent] $ echo err >&2" line.
	if !slices.Contains(b.paneLines(), "err") {
		t.Fatalf("the terminal does not show the stderr line; the pane shows:\n%s", b.paneText())
	}
}

func TestSudoAsksTheHumanForTheirPasswordHoweverShortTheTimeout(t *testing.T) {
	b := startBridge(t, asUser(testHuman))
	call := b.start(false, "--timeout", "1", "--", "sudo -k; sudo id -u")
	b.waitForScreen(b.terms[0], "[sudo] password for "+testHuman+":")
	b.waitFor("ptysend's note", func() bool {
		return strings.Contains(call.stderr.String(), theTerminalAsks("[sudo] password for "+testHuman+":"))
	})
	// The human takes longer than --timeout to type it.
	time.Sleep(1500 * time.Millisecond)
	b.terms[0].typeKeys(testHumanPassword + "\r")
	r := call.wait(t)
	// Clean text: sudo's question and the echo of the answer are the
	// terminal's conversation with the human, not output; sudo's own
	// terminal's "\r\n" (use_pty) is a plain "\n".
	if r.code != 0 || r.stdout != "0\n" {
		t.Fatalf("want exit 0 and only sudo's id -u on stdout, got:\n%v", r)
	}
	if n := strings.Count(r.stderr, "ptysend: the terminal asks:"); n != 1 || !strings.Contains(r.stderr, "ptybridge terminal") {
		t.Fatalf("want one note naming the question and where to answer it, got %d:\n%s", n, r.stderr)
	}
}

func TestAQuestionOnStderrShowsAndTheHumanAnswersIt(t *testing.T) {
	b := startBridge(t)
	// bash's read -p writes its prompt to stderr, with no newline.
	call := b.start(true, "--", `read -r -p "Continue? [y/N] " a; echo "answer: $a"`)
	b.waitForScreen(b.terms[0], "Continue? [y/N] ")
	time.Sleep(humanReaction)
	b.terms[0].typeKeys("y\r")
	r := call.wait(t)
	// The echo of the human's "y" is no output of the command's.
	if r.code != 0 || r.stdout != "answer: y\n" {
		t.Fatalf("want exit 0 and only the answer on stdout, got:\n%v", r)
	}
	if !strings.HasPrefix(r.stderr, "Continue? [y/N] ") || strings.Count(r.stderr, theTerminalAsks("Continue? [y/N]")) != 1 {
		t.Fatalf("want the question on stderr, then one note about it, got:\n%s", r.stderr)
	}
}

// A read of /dev/tty with stdin elsewhere (ptysend's stdin is no
// terminal) waits for the human too: the shell then holds the alias
// /dev/tty, not the pane's terminal, on its standard input.
func TestAReadOfDevTtyWaitsForTheHumanHoweverShortTheTimeout(t *testing.T) {
	b := startBridge(t)
	call := b.start(false, "--timeout", "1", "--", `read -r -p "Continue? [y/N] " a </dev/tty; echo "answer: $a"`)
	b.waitForScreen(b.terms[0], "Continue? [y/N] ")
	b.waitFor("ptysend's note", func() bool {
		return strings.Contains(call.stderr.String(), theTerminalAsks("Continue? [y/N]"))
	})
	time.Sleep(1500 * time.Millisecond) // longer than --timeout
	b.terms[0].typeKeys("y\r")
	if r := call.wait(t); r.code != 0 || r.stdout != "answer: y\n" {
		t.Fatalf("want exit 0 and the answer, got:\n%v", r)
	}
}

func TestEachQuestionGetsItsNote(t *testing.T) {
	b := startBridge(t)
	call := b.start(true, "--", `read -r -p "First? " a; read -r -p "Second? " c; echo "$a $c"`)
	for _, q := range []struct{ question, answer string }{{"First? ", "one\r"}, {"Second? ", "two\r"}} {
		b.waitForScreen(b.terms[0], q.question)
		time.Sleep(humanReaction)
		b.terms[0].typeKeys(q.answer)
	}
	r := call.wait(t)
	if r.code != 0 || r.stdout != "one two\n" {
		t.Fatalf("want exit 0 and both answers, got:\n%v", r)
	}
	for _, q := range []string{"First?", "Second?"} {
		if n := strings.Count(r.stderr, theTerminalAsks(q)); n != 1 {
			t.Errorf("want one note for %q, got %d:\n%s", q, n, r.stderr)
		}
	}
}

func TestRmAsksTheHumanInTheTerminal(t *testing.T) {
	b := startBridge(t)
	victim := filepath.Join(b.dir, "victim")
	must(t, os.WriteFile(victim, nil, 0o600))
	call := b.start(true, "--", "rm -i "+victim)
	b.waitForScreen(b.terms[0], "rm: remove regular empty file")
	time.Sleep(humanReaction)
	b.terms[0].typeKeys("y\r")
	r := call.wait(t)
	if r.code != 0 || !strings.HasPrefix(r.stderr, "rm: remove regular empty file") {
		t.Fatalf("want exit 0 and rm's question on stderr, got:\n%v", r)
	}
	if _, err := os.Stat(victim); !os.IsNotExist(err) {
		t.Fatalf("the human said yes, yet the file is there: %v", err)
	}
}

// A background job of the agent's (cmd &) outlives the call: its stderr
// keeps reaching the terminal, as a typed job's would, and neither
// stalls it once more than a pipe's worth is written nor lands in a later
// call's output.
func TestABackgroundJobsStderrKeepsReachingTheTerminal(t *testing.T) {
	b := startBridge(t)
	job := filepath.Join(b.dir, "job.sh")
	finished := filepath.Join(b.dir, "finished")
	must(t, os.WriteFile(job, []byte(`sleep 0.3
i=0
while [ $i -lt 6000 ]; do   # some 140 KB, more than a pipe holds
  echo "background line $i" >&2
  i=$((i+1))
  [ $((i % 1000)) -eq 0 ] && sleep 0.1
done
echo finished >"$1"
`), 0o644))
	if r := b.send("--", "sh "+job+" "+finished+" &"); r.code != 0 || r.stdout != "" {
		t.Fatalf("want exit 0 and no output, got:\n%v", r)
	}
	if r := b.send("--", "sleep 0.2; echo mine"); r.code != 0 || r.stdout != "mine\n" {
		t.Fatalf("a later call's output must not hold the job's stderr, got:\n%v", r)
	}
	b.waitFor("the job to finish", func() bool { _, err := os.Stat(finished); return err == nil })
	b.waitFor("the job's last line on the terminal", func() bool {
		return slices.Contains(b.paneLines(), "background line 5999")
	})
	b.waitFor("the ptysend that showed it to exit", func() bool { return !lateStderrRuns(b.runtimeDir()) })
	if got := b.run("--", "echo next"); got != "next\n" {
		t.Fatalf("got %q", got)
	}
}

// lateStderrRuns reports whether a ptysend of runtimeDir's bridge still
// shows the stderr of a finished call's background jobs.
func lateStderrRuns(runtimeDir string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		args, _ := os.ReadFile(p)
		if !strings.Contains(string(args), "\x00--late-stderr\x00") {
			continue
		}
		env, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "environ"))
		if strings.Contains(string(env), "PTYBRIDGE_RUNTIME_DIR="+runtimeDir+"\x00") {
			return true
		}
	}
	return false
}
