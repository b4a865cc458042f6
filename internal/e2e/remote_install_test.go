package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"testing"
)

// The host's own ptybridge, and a host's cache that cannot be written.

// buildStamped builds ptybridge, ptysend and ptysend-mcp into a new directory, stamped with
// version (cli.stamp) and built with tags: binaries of one version and different contents.
func buildStamped(t *testing.T, version string, tags ...string) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ptybridge-stamped")
	must(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	must(t, os.Chmod(dir, 0o755))
	args := []string{"build", "-o", dir + "/", "-ldflags", "-X github.com/ptybridge/ptybridge/internal/cli.stamp=" + version}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	build := exec.Command("go", append(args, "../../cmd/ptybridge", "../../cmd/ptysend", "../../cmd/ptysend-mcp")...)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	return dir
}

// installOnHost copies the binaries of dir into the host user's ~/bin, on its ssh commands' PATH.
func (h *remoteHost) installOnHost(t *testing.T, dir string) {
	t.Helper()
	home := filepath.Join(h.dir, "home", "bin")
	must(t, os.MkdirAll(home, 0o755))
	for _, name := range []string{"ptybridge", "ptysend", "ptysend-mcp"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		must(t, err)
		// By rename: the host may still run the one there (text file busy).
		must(t, os.WriteFile(filepath.Join(home, name+".new"), data, 0o755))
		must(t, os.Rename(filepath.Join(home, name+".new"), filepath.Join(home, name)))
	}
	must(t, h.user.Own(filepath.Join(h.dir, "home")))
	must(t, h.user.Own(home))
}

// A ptybridge installed on the host, of this version (another build: another checksum), is used:
// nothing is copied. One of another version is not: this one is copied to the cache.
func TestRemoteUsesTheHostsOwnPtybridgeOfThisVersion(t *testing.T) {
	const version = "v0.0.0-ptbtest"
	local := buildStamped(t, version)
	h := startRemoteHost(t)
	h.installOnHost(t, buildStamped(t, version, "portable"))
	if sha256File(t, filepath.Join(local, "ptysend")) == sha256File(t, filepath.Join(h.dir, "home", "bin", "ptysend")) {
		t.Fatal("the host's build must differ from the local one")
	}
	b := h.world()
	term := b.openTerminalOf(filepath.Join(local, "ptybridge"), "--host", h.dest, "--session", remoteSession)
	h.waitAttached(b, term, true)
	shown := screenText(term.screen())
	if !strings.Contains(shown, "using the ptybridge installed on "+h.dest+" in "+filepath.Join(h.dir, "home", "bin")) || strings.Contains(shown, "copying") {
		t.Fatalf("want the host's ptybridge used and nothing copied:\n%s", shown)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "home", ".cache", "ptybridge")); err == nil {
		t.Fatal("a cache was made on the host")
	}
	if got := b.run(at("--", "echo fine; whoami")...); got != "fine\n"+otherUser+"\n" {
		t.Fatalf("got %q", got)
	}
	ps, _ := exec.Command("ps", "-u", otherUser, "-o", "args=").Output()
	if !strings.Contains(string(ps), filepath.Join(h.dir, "home", "bin", "ptybridge")+" --relay") {
		t.Fatalf("the host's session is not its own ptybridge's:\n%s", ps)
	}
	term.close()
	h.waitAttached(b, term, false)

	t.Run("of another version, it is not used", func(t *testing.T) {
		h.tmux("kill-server")
		h.installOnHost(t, bin) // the suite's build, unstamped
		term := b.openTerminalOf(filepath.Join(local, "ptybridge"), "--host", h.dest, "--session", remoteSession)
		h.waitAttached(b, term, true)
		b.waitForScreen(term, "copying ptysend to "+h.dest)
		if shown := screenText(term.screen()); !strings.Contains(shown, "not this one's version ("+version+"): using a copy of this one instead") {
			t.Fatalf("want the other version named and passed over:\n%s", shown)
		}
		if sha256File(t, filepath.Join(h.cache(), "ptysend")) != sha256File(t, filepath.Join(local, "ptysend")) {
			t.Fatal("the cache does not hold this ptysend")
		}
		if got := b.run(at("--", "echo fine")...); got != "fine\n" {
			t.Fatalf("got %q", got)
		}
	})
}

// mountOnHost mounts a tmpfs with options over the host user's ~/.cache, theirs, until the test ends.
func (h *remoteHost) mountOnHost(t *testing.T, options string) {
	t.Helper()
	cache := filepath.Join(h.dir, "home", ".cache")
	must(t, os.MkdirAll(cache, 0o700))
	must(t, h.user.Own(filepath.Join(h.dir, "home")))
	u, err := user.Lookup(otherUser)
	must(t, err)
	opts := fmt.Sprintf("uid=%s,gid=%s,mode=0700,%s", u.Uid, u.Gid, options)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", opts, "ptbtest", cache).CombinedOutput(); err != nil {
		t.Fatalf("mount: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", cache).Run() })
}

func TestRemoteCacheOnAFullDisk(t *testing.T) {
	h := startRemoteHost(t)
	h.mountOnHost(t, "size=1m")
	b := h.world()
	h.openFails(t, b, "No space left on device")
	shown := screenText(b.terms[0].screen())
	if !strings.Contains(shown, "hint: the disk of the host's cache is full: free ") || !strings.Contains(shown, "go install github.com/ptybridge/ptybridge/cmd/...@latest on the host") {
		t.Fatalf("want the hint to free space or install ptybridge on the host:\n%s", shown)
	}
	left, _ := filepath.Glob(filepath.Join(h.dir, "home", ".cache", "ptybridge", "*", "*"))
	if len(left) != 0 {
		t.Fatalf("a partial copy was left: %q", left)
	}
}

func TestRemoteCacheOnAReadOnlyDisk(t *testing.T) {
	h := startRemoteHost(t)
	h.mountOnHost(t, "ro")
	b := h.world()
	h.openFails(t, b, "Read-only file system")
	if shown := screenText(b.terms[0].screen()); !strings.Contains(shown, "hint: the host's home (or its ~/.cache) is read-only") {
		t.Fatalf("want the hint for a read-only home:\n%s", shown)
	}
}
