package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionNamesTheBuild builds both tools, as a user would, in a git
// checkout of this source tree: --version names the commit and its date,
// marks a modified checkout, and names the release of a tagged one.
func TestVersionNamesTheBuild(t *testing.T) {
	repo := copyOfTheSource(t)
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_COMMITTER_DATE=2026-11-22T10:00:00Z", "GIT_AUTHOR_DATE=2026-11-22T10:00:00Z")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "the source")
	rev := git("rev-parse", "HEAD")[:12]
	versions := func() []string {
		t.Helper()
		var got []string
		for _, tool := range []string{"ptysend", "ptybridge"} {
			// go build in a checkout stamps it (-buildvcs=true: this
			// machine's go may be configured not to).
			build := exec.Command("go", "build", "-buildvcs=true", "-o", filepath.Join(repo, "bin")+"/", "./cmd/"+tool)
			build.Dir = repo
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build %s: %v\n%s", tool, err, out)
			}
			out, err := exec.Command(filepath.Join(repo, "bin", tool), "--version").Output()
			if err != nil {
				t.Fatalf("%s --version: %v", tool, err)
			}
			got = append(got, strings.TrimSpace(string(out)))
		}
		return got
	}
	expect := func(what, want string) {
		t.Helper()
		for _, got := range versions() {
			if got != want {
				t.Errorf("%s: want --version %q, got %q", what, want, got)
			}
		}
	}
	expect("a clean checkout", rev+" (2026-11-22T10:00:00Z)")
	git("tag", "v1.2.3")
	expect("a checkout at a release tag", "v1.2.3")
	must(t, os.WriteFile(filepath.Join(repo, "README.md"), []byte("changed\n"), 0o644))
	expect("a modified checkout", rev+"+dirty (2026-11-22T10:00:00Z)")
}

// copyOfTheSource copies the source tree this test runs in (tracked and
// new files, as they are now) into a new directory.
func copyOfTheSource(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	must(t, err)
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	dst := t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(root, name))
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		must(t, err)
		must(t, os.MkdirAll(filepath.Join(dst, filepath.Dir(name)), 0o755))
		must(t, os.WriteFile(filepath.Join(dst, name), data, 0o644))
	}
	return dst
}
