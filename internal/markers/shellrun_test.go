package markers_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// A shellUnderTest is a real shell the generated scripts are run with.
type shellUnderTest struct {
	name     string
	argv     []string // the program and its flags; -c and the line follow
	family   markers.Shell
	optional bool // skipped when not installed
}

var shellsUnderTest = []shellUnderTest{
	{name: "bash", argv: []string{"bash", "--norc", "--noprofile"}, family: markers.POSIX},
	{name: "bash --posix", argv: []string{"bash", "--norc", "--noprofile", "--posix"}, family: markers.POSIX},
	{name: "dash", argv: []string{"dash"}, family: markers.POSIX},
	{name: "zsh", argv: []string{"zsh", "-f"}, family: markers.Zsh},
	{name: "fish", argv: []string{"fish", "--no-config"}, family: markers.Fish},
}

// testHome is $HOME for the shells: a path that needs quoting.
const testHome = "/nonexistent/ptybridge home"

// forEachShell runs f as a subtest for every shell of the family. Every
// shell must be installed (.ci/run installs them): a missing one fails.
func forEachShell(t *testing.T, family markers.Shell, f func(t *testing.T, sh shellUnderTest)) {
	t.Helper()
	for _, sh := range shellsUnderTest {
		if sh.family != family {
			continue
		}
		t.Run(sh.name, func(t *testing.T) {
			if _, err := exec.LookPath(sh.argv[0]); err != nil {
				if sh.optional {
					t.Skipf("%s is not installed", sh.argv[0])
				}
				t.Fatalf("%s is required for this test: %v", sh.argv[0], err)
			}
			f(t, sh)
		})
	}
}

// A sandbox is a directory for one shell run: the scripts, the stderr and
// stdin files, and a bin directory on PATH with commands whose names
// start with '-'.
type sandbox struct {
	dir string // has a space and a single quote in it
	bin string
	// prelude is run by the shell before it sources the scripts.
	prelude string
	// mergeStderr sends the shell's stderr to its stdout, as in a pane.
	mergeStderr bool
	// stderr has, for each job, what its command wrote to stderr.
	stderr map[markers.ID]func() string
}

func newSandbox(t *testing.T) sandbox {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "it's a dir")
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	greet := "#!/bin/sh\necho greeted \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "-greet"), []byte(greet), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"cat", "printf"} {
		target, err := exec.LookPath(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(bin, "-"+name)); err != nil {
			t.Fatal(err)
		}
	}
	return sandbox{dir: dir, bin: bin, stderr: map[markers.ID]func() string{}}
}

// newJob is a job with a fresh id whose stderr goes to a fifo in the
// sandbox, read as ptysend reads it (see serveStderr).
func (sb sandbox) newJob(t *testing.T, command string) markers.Job {
	t.Helper()
	id, err := markers.NewID()
	if err != nil {
		t.Fatal(err)
	}
	job := markers.Job{ID: id, Command: command,
		StderrPath: filepath.Join(sb.dir, string(id)+".err"), AckPath: filepath.Join(sb.dir, string(id)+".ack")}
	sb.stderr[id] = serveStderr(t, job)
	return job
}

// serveStderr plays ptysend's part with the job's fifos: it reads the
// command's stderr until the wrapper's StderrDone token, then closes the
// ack fifo so the wrapper goes on. The function it returns waits for the
// token and returns the stderr.
func serveStderr(t *testing.T, job markers.Job) func() string {
	t.Helper()
	for _, p := range []string{job.StderrPath, job.AckPath} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	errFifo, err := os.OpenFile(job.StderrPath, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	ack, err := os.OpenFile(job.AckPath, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { errFifo.Close(); ack.Close() })
	var stderr bytes.Buffer
	stream := markers.NewStderrStream(job.ID, &stderr)
	done := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for !stream.Done() {
			n, err := errFifo.Read(buf)
			stream.Write(buf[:n])
			if err != nil {
				return
			}
		}
		ack.Close()
		close(done)
	}()
	return func() string {
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Errorf("the wrapper never wrote the StderrDone token into %s", job.StderrPath)
		}
		return stderr.String()
	}
}

// source writes the scripts of jobs and has one shell process source them
// one after the other, typed as SourceLine would type them, with stdin as
// the shell's standard input. It returns the shell's standard output.
func (sb sandbox) source(t *testing.T, sh shellUnderTest, stdin string, jobs ...markers.Job) string {
	t.Helper()
	var lines []string
	if sb.prelude != "" {
		lines = append(lines, sb.prelude)
	}
	for _, job := range jobs {
		path := filepath.Join(sb.dir, string(job.ID)+".sh")
		if err := os.WriteFile(path, []byte(markers.Script(sh.family, job)), 0o600); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, markers.SourceLine(sh.family, path))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := append(append([]string(nil), sh.argv[1:]...), "-c", strings.Join(lines, "\n"))
	cmd := exec.CommandContext(ctx, sh.argv[0], args...)
	cmd.Dir = sb.dir
	cmd.Env = []string{
		"PATH=" + sb.bin + ":" + os.Getenv("PATH"),
		"HOME=" + testHome,
		"LC_ALL=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(sb.dir, "config"),
		"XDG_DATA_HOME=" + filepath.Join(sb.dir, "data"),
		"XDG_CACHE_HOME=" + filepath.Join(sb.dir, "cache"),
	}
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if sb.mergeStderr {
		cmd.Stderr = &stdout
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish in time; stdout %q, stderr %q", sh.name, stdout.String(), stderr.String())
	}
	if stderr.Len() > 0 || err != nil {
		t.Logf("%s itself (not the command) said: %v %q", sh.name, err, stderr.String())
	}
	return stdout.String()
}

// extractFrom feeds a shell's standard output to an Extractor for id as
// the pane would: through the tty's ONLCR (there is no tty here, so the
// test applies it; markers hold no "\n", so it changes only the output).
func extractFrom(t *testing.T, id markers.ID, stdout string) result {
	t.Helper()
	var out bytes.Buffer
	e := markers.NewExtractor(id, &out)
	if _, err := e.Write([]byte(onlcr(stdout))); err != nil {
		t.Fatal(err)
	}
	return result{out: out.String(), started: e.Started(), done: e.Done(), status: e.Status()}
}

// runJob runs one job in sh and returns what the Extractor made of the
// shell's output, and what the command wrote to its stderr.
func (sb sandbox) runJob(t *testing.T, sh shellUnderTest, stdin string, job markers.Job) (result, string) {
	t.Helper()
	got := extractFrom(t, job.ID, sb.source(t, sh, stdin, job))
	return got, sb.stderr[job.ID]()
}

// A command with a syntax error fails like any command: the script goes
// on to print END with a non-zero status, so the call ends.
func TestScriptSyntaxErrorStillReachesEND(t *testing.T) {
	for _, family := range []markers.Shell{markers.POSIX, markers.Zsh, markers.Fish} {
		commands := []string{"if then", "echo 'unterminated", "echo ok; )"}
		if family == markers.Fish {
			commands = []string{"if", "echo 'unterminated", "echo ok; )", "end"}
		}
		forEachShell(t, family, func(t *testing.T, sh shellUnderTest) {
			for _, command := range commands {
				sb := newSandbox(t)
				got, stderr := sb.runJob(t, sh, "", sb.newJob(t, command))
				if !got.started || !got.done {
					t.Errorf("command %q: Started() = %v, Done() = %v; want both: END must follow a syntax error", command, got.started, got.done)
					continue
				}
				if got.status == 0 {
					t.Errorf("command %q: status 0, want non-zero", command)
				}
				// fish prints its own diagnostics to the shell's stderr
				// (the pane), whatever eval's redirection says.
				if stderr == "" && family != markers.Fish {
					t.Errorf("command %q: nothing in the stderr file, want the shell's syntax error", command)
				}
			}
		})
	}
}

// A command may start with '-' (the name of a program, however odd): it
// runs as typed, and is never taken for an option of eval.
func TestScriptCommandStartingWithDash(t *testing.T) {
	commands := map[markers.Shell]string{
		markers.POSIX: "-greet now 'and then'",
		markers.Zsh:   "-greet now 'and then'",
		markers.Fish:  "-greet now 'and then'",
	}
	for family, command := range commands {
		forEachShell(t, family, func(t *testing.T, sh shellUnderTest) {
			sb := newSandbox(t)
			got, stderr := sb.runJob(t, sh, "", sb.newJob(t, command))
			check(t, "command "+command, got, finished("greeted now and then\n", 0))
			if stderr != "" {
				t.Errorf("command %q: stderr %q, want none", command, stderr)
			}
		})
	}
}

// A ptysend that is gone (killed while the command ran) holds its ends of
// the fifos no more: the wrapper neither waits for it nor dies of SIGPIPE
// when the command writes to stderr, and the shell reaches END.
func TestScriptGoesOnWhenPtysendIsGone(t *testing.T) {
	for _, family := range []markers.Shell{markers.POSIX, markers.Zsh, markers.Fish} {
		forEachShell(t, family, func(t *testing.T, sh shellUnderTest) {
			sb := newSandbox(t)
			id, err := markers.NewID()
			if err != nil {
				t.Fatal(err)
			}
			job := markers.Job{ID: id, Command: "sleep 0.6; echo late >&2; echo out",
				StderrPath: filepath.Join(sb.dir, "gone.err"), AckPath: filepath.Join(sb.dir, "gone.ack")}
			var held []*os.File
			for _, p := range []string{job.StderrPath, job.AckPath} {
				if err := syscall.Mkfifo(p, 0o600); err != nil {
					t.Fatal(err)
				}
				f, err := os.OpenFile(p, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				held = append(held, f)
			}
			// ptysend goes while the command sleeps: its ends close.
			time.AfterFunc(250*time.Millisecond, func() {
				for _, f := range held {
					f.Close()
				}
			})
			got := extractFrom(t, job.ID, sb.source(t, sh, "", job))
			check(t, "ptysend gone", got, finished("out\n", 0))
		})
	}
}
