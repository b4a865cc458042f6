package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
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
