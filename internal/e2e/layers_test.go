package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The other platform layer's ptysend: the portable one when this run uses procfs, and procfs
// when it runs -tags portable (the layer macOS and FreeBSD run).
// Built for each run of the test, which removes it: -count=N runs it N times.
func otherLayer() (string, error) {
	dir, err := os.MkdirTemp("", "ptybridge-other-layer")
	if err != nil {
		return "", err
	}
	args := []string{"build", "-o", dir + "/"}
	if !portable {
		args = append(args, "-tags", "portable")
	}
	build := exec.Command("go", append(args, "../../cmd/ptysend")...)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v: %s", err, out)
	}
	// The test user runs it too.
	return filepath.Join(dir, "ptysend"), os.Chmod(dir, 0o755)
}

// ptysend's core scenarios, each run by the procfs layer's ptysend and by the portable one's
// against one bridge, give the same answers: where the portable layer is weaker
// (docs/platforms.md), these scenarios do not go.
func TestBothPlatformLayersGiveTheSameAnswers(t *testing.T) {
	other, err := otherLayer()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(filepath.Dir(other)) })
	b := startBridge(t, asUser(testHuman)) // whose sudo asks for a password
	send := func(exe string, args ...string) result { return b.resultOf(b.ptysendOf(exe, nil, args...)) }
	calls := func(argvs ...[]string) func(exe string) []result {
		return func(exe string) []result {
			var out []result
			for _, args := range argvs {
				out = append(out, send(exe, args...))
			}
			return out
		}
	}
	scenarios := []struct {
		name  string
		run   func(exe string) []result
		codes []int // the exit statuses, that the scenario shows what it names
	}{
		{"a command", calls([]string{"--", "echo hello; pwd"}), []int{0}},
		{"stdout and stderr", calls([]string{"--", "echo out; echo err >&2"}), []int{0}},
		{"an exit status", calls([]string{"--", "(exit 3)"}), []int{3}},
		{"the no-output timeout", calls([]string{"--timeout", "1", "--", "echo started; sleep 30"}), []int{124}},
		{"a REPL", calls([]string{"--repl-start", "python3"}, []string{"--repl-eval", "6 * 7"},
			[]string{"--repl-eval", "print('a'); print('b')"}, []string{"--repl-close"}), []int{0, 0, 0, 0}},
		{"a job", calls([]string{"--job", "layers", "--", "echo job-output; sleep 30"},
			[]string{"--job-wait", "layers", "--until", "job-output"}, []string{"--job-stop", "layers"}), []int{0, 0, 130}},
		{"the human's command running", func(exe string) []result {
			b.terms[0].typeKeys("sleep 30\r")
			b.waitFor("the human's sleep", func() bool { return b.paneCommand() == "sleep" })
			r := send(exe, "--", "echo agent")
			b.terms[0].typeKeys("\x03")
			b.waitFor("the prompt again", func() bool {
				return b.paneCommand() != "sleep" && strings.HasSuffix(strings.TrimRight(b.cursorLine(), " "), "$")
			})
			return []result{r}
		}, []int{75}},
		{"a half-typed line", func(exe string) []result {
			b.terms[0].typeKeys("echo half-typed")
			b.waitFor("the keys' echo", func() bool { return strings.Contains(b.cursorLine(), "echo half-typed") })
			r := send(exe, "--", "echo agent")
			b.terms[0].typeKeys("\x15") // Ctrl-U
			b.waitFor("the line cleared", func() bool { return !strings.Contains(b.cursorLine(), "echo half-typed") })
			return []result{r}
		}, []int{75}},
		{"a sudo password", func(exe string) []result {
			r := &running{cmd: b.ptysendOf(exe, nil, "--timeout", "1", "--", "sudo -k; sudo id -u; sudo -k"),
				stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, closeStdin: func() {}}
			r.cmd.Stdout, r.cmd.Stderr = r.stdout, r.stderr
			must(t, r.cmd.Start())
			b.waitFor("ptysend's note", func() bool {
				return strings.Contains(r.stderr.String(), theTerminalAsks("[sudo] password for "+testHuman+":"))
			})
			b.terms[0].typeKeys(testHumanPassword + "\r")
			return []result{r.wait(t)}
		}, []int{0}},
	}
	layers := []string{filepath.Join(bin, "ptysend"), other}
	for _, sc := range scenarios {
		var answers [2][]result
		for i, exe := range layers {
			answers[i] = sc.run(exe)
		}
		if got := codes(answers[0]); !slices.Equal(got, sc.codes) {
			t.Errorf("%s: exit statuses %v, want %v: %v", sc.name, got, sc.codes, answers[0])
		}
		if fmt.Sprint(answers[0]) != fmt.Sprint(answers[1]) {
			t.Errorf("%s: the layers differ:\n%v\nand\n%v", sc.name, answers[0], answers[1])
		}
	}
}

func codes(rs []result) []int {
	var out []int
	for _, r := range rs {
		out = append(out, r.code)
	}
	return out
}
