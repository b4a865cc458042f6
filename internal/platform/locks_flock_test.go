//go:build !linux || portable

package platform

import (
	"path/filepath"
	"testing"
)

// A lock file outlives its lock only until the next look: nothing piles up in the directory.
func TestLockFilesOfGoneLocksArePruned(t *testing.T) {
	dir := t.TempDir()
	mine, err := OpenByteLocks(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{1, 2} {
		if err := mine.Share(n); err != nil {
			t.Fatal(err)
		}
	}
	other, err := OpenByteLocks(dir)
	if err != nil {
		t.Fatal(err)
	}
	other.Prune()
	if files := lockFiles(t, dir); len(files) != 2 {
		t.Fatalf("held locks' files pruned: %q", files)
	}
	mine.Close()
	if other.Held(1) {
		t.Fatal("a lock outlives its open")
	}
	other.Prune()
	if files := lockFiles(t, dir); len(files) != 0 {
		t.Fatalf("left behind: %q", files)
	}
	if err := other.Share(1); err != nil || !mustOpen(t, dir).Held(1) {
		t.Fatalf("a pruned lock cannot be taken again: %v", err)
	}
}

func lockFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, lockFilePrefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func mustOpen(t *testing.T, dir string) *ByteLocks {
	t.Helper()
	l, err := OpenByteLocks(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	return l
}
