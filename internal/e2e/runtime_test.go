package e2e

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRuntimeDirAndRelaySocketArePrivate(t *testing.T) {
	b := startBridge(t)
	for path, want := range map[string]os.FileMode{
		b.runtimeDir(): 0o700,
		filepath.Join(b.runtimeDir(), b.name+".sock"): 0o600,
	} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm != want {
			t.Errorf("%s: mode %04o, want %04o", path, perm, want)
		}
	}
}

// callFiles are the per-call files in the runtime directory: named after
// a call's id, 16 hex digits.
func (b *bridge) callFiles() []string {
	b.t.Helper()
	entries, err := os.ReadDir(b.runtimeDir())
	if err != nil {
		b.t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if id, _, ok := strings.Cut(e.Name(), "."); ok && len(id) == 16 && strings.Trim(id, "0123456789abcdef") == "" {
			files = append(files, e.Name())
		}
	}
	return files
}

func TestLeftoversOfAKilledCallAreRemovedByTheNextCall(t *testing.T) {
	b := integrated(t)
	// stdin from a pipe: the call makes its stdin fifo too.
	call := b.ptysend(strings.NewReader("data"), "--", "echo err >&2; sleep 300")
	must(t, call.Start())
	b.waitFor("sleep to run", func() bool { return b.paneCommand() == "sleep" })
	must(t, call.Process.Kill()) // SIGKILL: no chance to clean up
	call.Wait()
	left := b.callFiles()
	for _, ext := range []string{".sh", ".err", ".in"} {
		if !slices.ContainsFunc(left, func(f string) bool { return strings.HasSuffix(f, ext) }) {
			t.Fatalf("the killed call should have left its %s file; the directory has %q", ext, left)
		}
	}
	// Any other file named after a call that is gone is a leftover too.
	must(t, os.WriteFile(filepath.Join(b.runtimeDir(), "0123456789abcdef.out"), nil, 0o600))

	b.terms[0].typeKeys("\x03") // the human stops the orphaned sleep
	b.waitFor("the next call to run", func() bool { return b.send("--", "true").code == 0 })
	if left := b.callFiles(); len(left) != 0 {
		t.Fatalf("the next call must remove the leftovers, left %q", left)
	}
	for _, own := range []string{".sock", ".hooked"} {
		if _, err := os.Stat(filepath.Join(b.runtimeDir(), b.name+own)); err != nil {
			t.Errorf("the bridge's own %s file must stay: %v", own, err)
		}
	}
}

func TestTheSweepSparesOtherBridgesCallsAndREPLs(t *testing.T) {
	b := integrated(t)
	// A second bridge shares the runtime directory.
	b.openTerminal("--session", "second")
	b.waitFor("the second bridge", func() bool { _, err := b.tmux("has-session", "-t", "=second"); return err == nil })
	second := func(args ...string) []string { return append([]string{"--session", "second"}, args...) }
	b.run(second("--", "true")...)

	// A call of the second bridge's, blocked reading its stdin...
	in, feed := io.Pipe()
	call := b.ptysend(in, second("--", "cat; echo err >&2")...)
	var stdout, stderr strings.Builder
	call.Stdout, call.Stderr = &stdout, &stderr
	must(t, call.Start())
	b.waitFor("its cat to run", func() bool {
		out, _ := b.tmux("display-message", "-p", "-t", "=second:", "#{pane_current_command}")
		return strings.TrimSpace(out) == "cat"
	})
	live := b.callFiles()
	// ...is no leftover to a call of the first bridge.
	b.run("--", "true")
	if left := b.callFiles(); !slices.Equal(left, live) {
		t.Fatalf("a live call's files were removed: had %q, now %q", live, left)
	}
	feed.Write([]byte("fed\n"))
	feed.Close()
	must(t, call.Wait())
	if stdout.String() != "fed\n" || stderr.String() != "err\n" {
		t.Fatalf("the second bridge's call: stdout %q, stderr %q", stdout.String(), stderr.String())
	}

	// Nor is the script of a REPL running in the second bridge.
	if r := b.send(second("--repl-start", fakeREPLCommand(), "--prompt", fakePrompt)...); r.code != 0 {
		t.Fatalf("start:\n%v", r)
	}
	script := b.callFiles()
	if len(script) != 1 || !strings.HasSuffix(script[0], ".repl.sh") {
		t.Fatalf("want the REPL's script only, got %q", script)
	}
	b.run("--", "true")
	if left := b.callFiles(); !slices.Equal(left, script) {
		t.Fatalf("the running REPL's script was removed: %q", left)
	}
	if r := b.send(second("--repl-eval", "echo still here")...); r.stdout != "still here\n" {
		t.Fatalf("eval:\n%v", r)
	}
	if r := b.send(second("--repl-close")...); r.code != 0 {
		t.Fatalf("close:\n%v", r)
	}
	if left := b.callFiles(); len(left) != 0 {
		t.Fatalf("closing the REPL removes its script: %q", left)
	}
}

func TestRuntimeDirFollowsXDGThenTMPDIR(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		want string // relative to the test's directory
	}{
		{"XDG_RUNTIME_DIR", map[string]string{"XDG_RUNTIME_DIR": "xdg"}, "xdg/ptybridge"},
		{"temporary directory", map[string]string{"TMPDIR": "tmp"}, "tmp/ptybridge-" + currentUser()},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newWorld(t)
			b.env = without(b.env, "PTYBRIDGE_RUNTIME_DIR", "TMPDIR")
			for k, v := range c.env {
				dir := filepath.Join(b.dir, v)
				os.Mkdir(dir, 0o700)
				b.setenv(k, dir)
			}
			b.openTerminal()
			b.waitReady()
			b.run("--", "true")
			sock := filepath.Join(b.dir, c.want, b.name+".sock")
			if _, err := os.Stat(sock); err != nil {
				t.Fatalf("want the relay socket at %s: %v", sock, err)
			}
		})
	}
}

func TestUnsafeRuntimeDirIsRefused(t *testing.T) {
	cases := []struct {
		name  string
		plant func(t *testing.T, dir string)
		says  string
	}{
		{"readable by others", func(t *testing.T, dir string) {
			must(t, os.Mkdir(dir, 0o755))
			must(t, os.Chmod(dir, 0o755))
		}, "mode 0755"},
		{"planted by another user", func(t *testing.T, dir string) {
			must(t, os.Mkdir(dir, 0o700))
			if os.Geteuid() != 0 {
				t.Skip("needs root to give the directory to another user")
			}
			must(t, os.Chown(dir, 65534, 65534))
		}, "owned by uid 65534"},
		{"a symbolic link", func(t *testing.T, dir string) {
			target := dir + "-target"
			must(t, os.Mkdir(target, 0o700))
			must(t, os.Symlink(target, dir))
		}, "symbolic link"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newWorld(t)
			c.plant(t, b.runtimeDir())

			r := b.send("--", "true")
			if r.code != 125 || !strings.Contains(r.stderr, b.runtimeDir()) || !strings.Contains(r.stderr, c.says) {
				t.Fatalf("ptysend must refuse naming the path and why (%q):\n%v", c.says, r)
			}
			term := b.openTerminal()
			if code := term.exited(t); code == 0 || !strings.Contains(term.screen(), b.runtimeDir()) {
				t.Fatalf("ptybridge must refuse too; exit %d, screen %q", code, term.screen())
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestAnotherUserCannotReachTheRelay(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to act as another user")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Fatal("setpriv (util-linux) is needed for this test")
	}
	b := startBridge(t)
	sock := filepath.Join(b.runtimeDir(), b.name+".sock")
	out, err := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
		"python3", "-c", "import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])", sock).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Permission denied") {
		t.Fatalf("another user must not connect to the relay; err %v, out %q", err, out)
	}
}
