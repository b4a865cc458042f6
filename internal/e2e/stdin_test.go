package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// asks is a command that asks question on stderr and reads the answer
// from stdin, in every shell's syntax alike: sh runs it, under the wrapper
// of the shell under test.
func asks(question string) string {
	return `sh -c 'printf "` + question + ` [y/N] " >&2; read a && echo "got:$a"'`
}

// Agents' shell tools give ptysend /dev/null, a closed stdin or a socket
// that never ends: none of those is data, so the command's question
// reaches the human in the shared terminal. A pipe or a file is data, and
// is forwarded; --stdin overrides the choice.
func TestStdinIsForwardedOnlyWhenItCarriesData(t *testing.T) {
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			humanAnswers := func(t *testing.T, question string, call *running) {
				t.Helper()
				b.waitForScreen(b.terms[0], question+" [y/N] ")
				time.Sleep(humanReaction)
				b.terms[0].typeKeys("y\r")
				if r := call.wait(t); r.code != 0 || r.stdout != "got:y\n" {
					t.Fatalf("want the human's answer, got:\n%v", r)
				}
			}
			t.Run("/dev/null: the human answers", func(t *testing.T) {
				null, err := os.Open(os.DevNull)
				must(t, err)
				defer null.Close()
				humanAnswers(t, "Null?", b.startWithStdin(null, asks("Null?")))
			})
			t.Run("a closed stdin: the human answers", func(t *testing.T) {
				call := b.startWithStdin(nil, asks("Closed?"))
				closeStdinFirst(call)
				humanAnswers(t, "Closed?", call.begin(t))
			})
			t.Run("a socket that never ends: the human answers", func(t *testing.T) {
				fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
				must(t, err)
				ours, theirs := os.NewFile(uintptr(fds[0]), "ours"), os.NewFile(uintptr(fds[1]), "theirs")
				defer ours.Close()
				defer theirs.Close()
				humanAnswers(t, "Socket?", b.startWithStdin(theirs, asks("Socket?")))
			})
			t.Run("--stdin=terminal: the human answers, the pipe is left alone", func(t *testing.T) {
				humanAnswers(t, "Overridden?", b.startWithStdin(strings.NewReader("from the pipe\n"), "--stdin=terminal", "--", asks("Overridden?")))
			})
			t.Run("a pipe with data is forwarded", func(t *testing.T) {
				r := b.sendWith(strings.NewReader("piped\n"), "--", asks("Data?"))
				if r.code != 0 || r.stdout != "got:piped\n" {
					t.Fatalf("got:\n%v", r)
				}
			})
			t.Run("a regular file is forwarded", func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "answer")
				must(t, os.WriteFile(path, []byte("filed\n"), 0o644))
				f, err := os.Open(path)
				must(t, err)
				defer f.Close()
				r := b.sendWith(f, "--", asks("Data?"))
				if r.code != 0 || r.stdout != "got:filed\n" {
					t.Fatalf("got:\n%v", r)
				}
			})
			t.Run("an empty pipe is forwarded, and the note says how the human could answer", func(t *testing.T) {
				r, w, err := os.Pipe()
				must(t, err)
				w.Close()
				defer r.Close()
				got := b.sendWith(r, "--", asks("Data?"))
				if got.code != 1 || got.stdout != "" || !strings.Contains(got.stderr, "--stdin=terminal") {
					t.Fatalf("want exit 1 and a note naming --stdin=terminal, got:\n%v", got)
				}
			})
			t.Run("--stdin=forward forwards /dev/null", func(t *testing.T) {
				null, err := os.Open(os.DevNull)
				must(t, err)
				defer null.Close()
				r := b.sendWith(null, "--stdin=forward", "--", asks("Data?"))
				if r.code != 1 || r.stdout != "" {
					t.Fatalf("want the command to read end-of-file (exit 1), got:\n%v", r)
				}
			})
		})
	}
}

// startWithStdin starts ptysend with stdin as its stdin (nil: /dev/null)
// and args, or a command alone (then the args are "--" and it).
func (b *bridge) startWithStdin(stdin any, args ...string) *running {
	b.t.Helper()
	if len(args) == 1 {
		args = []string{"--", args[0]}
	}
	r := &running{stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, closeStdin: func() {}}
	r.cmd = b.ptysend(nil, args...)
	switch in := stdin.(type) {
	case *os.File:
		r.cmd.Stdin = in
	case *strings.Reader:
		r.cmd.Stdin = in
	}
	r.cmd.Stdout, r.cmd.Stderr = r.stdout, r.stderr
	if r.deferred = stdin == nil; !r.deferred {
		must(b.t, r.cmd.Start())
	}
	return r
}

// closeStdinFirst makes the call start with no stdin at all: sh closes it
// and execs ptysend.
func closeStdinFirst(r *running) {
	r.cmd.Args = append([]string{"sh", "-c", `exec "$0" "$@" <&-`, r.cmd.Path}, r.cmd.Args[1:]...)
	r.cmd.Path = "/bin/sh"
}

// begin starts a call that startWithStdin left unstarted.
func (r *running) begin(t *testing.T) *running {
	t.Helper()
	must(t, r.cmd.Start())
	return r
}
