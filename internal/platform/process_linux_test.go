package platform

import (
	"os"
	"path/filepath"
	"testing"
)

// The command name may hold spaces and parentheses: the fields count
// from the last ')'.
func TestReadStatOfAStrangeCommandName(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stat")
	line := "4242 (a) b (c) S 1 4242 4242 34817 4300 4194560 0 0 0 0 0 0 0 0 20 0 1 0 123456 0 0 " +
		"18446744073709551615 94000000000000 94000000100000 140700000000000 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n"
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := readStat(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Proc{PID: 4242, State: 'S', PPID: 1, PGID: 4242, SID: 4242, TTY: 34817, TPGID: 4300, Start: 123456,
		Image: "94000000000000 94000000100000 140700000000000"}
	if p != want {
		t.Fatalf("readStat = %+v, want %+v", p, want)
	}
}
