package rundir

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSweepRemovesOnlyTheFilesOfCallsThatAreGone(t *testing.T) {
	dir := t.TempDir()
	const live, gone, repl = "1111111111111111", "2222222222222222", "3333333333333333"
	if err := Claim(dir, live); err != nil {
		t.Fatal(err)
	}
	files := []string{
		live + ".sh", live + ".err", live + ".in",
		gone + ".sh", gone + ".err", gone + ".in", gone + ".anything-new",
		repl + ".repl.sh",
		// The bridge's own files, also of a session whose name looks like an id.
		"ptybridge-u.sock", "ptybridge-u.mode", "ptybridge-u.hooked", "ptybridge-u.repl.json",
		"0123456789abcdef.sock", "0123456789abcdef.query.sock", "0123456789abcdef.mode", "0123456789abcdef.hooked",
		"0123456789abcdef.repl.json", "0123456789abcdef.repl.json.tmp",
		"0123456789abcdef.pane", "0123456789abcdef.job-web.sock", "0123456789abcdef.spare",
		"0123456789abcdef.spare-fedcba9876543210.fifo", "0123456789abcdef.spare-fedcba9876543210.sock",
		"notes.txt",
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	SweepLeftovers(dir, func(name string) bool { return name == repl+".repl.sh" })
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	for _, f := range files {
		removed, want := !slices.Contains(left, f), strings.HasPrefix(f, gone+".")
		if removed != want {
			t.Errorf("%s: removed %v, want %v", f, removed, want)
		}
	}
}

// macOS's $TMPDIR is long (/var/folders/xx/.../T/): the sockets would not fit under it.
func TestALongTMPDIRLeavesRoomForTheSockets(t *testing.T) {
	t.Setenv("PTYBRIDGE_RUNTIME_DIR", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("USER", "ada")
	t.Setenv("TMPDIR", "/var/tmp")
	if got := Path(); got != "/var/tmp/ptybridge-ada" {
		t.Fatalf("Path = %q, want /var/tmp/ptybridge-ada: it leaves room", got)
	}
	t.Setenv("TMPDIR", "/var/folders/zz/zyxvpxvq6csfxvn_n0000000000000/T/")
	if got := Path(); got != "/tmp/ptybridge-ada" {
		t.Fatalf("Path = %q under macOS's TMPDIR, want /tmp/ptybridge-ada", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", "/"+strings.Repeat("long/", 12))
	if got := Path(); got != "/tmp/ptybridge-ada" {
		t.Fatalf("Path = %q under a long XDG_RUNTIME_DIR, want /tmp/ptybridge-ada", got)
	}
}
