package main

import (
	"debug/elf"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// ptysend's peak memory for a large output is mostly its own binary (the
// kernel maps it whole): what it links costs every call. These tests keep
// out what was found to cost the most for the least (scripts/bench has the
// figures).

var built struct {
	once    sync.Once
	symbols []elf.Symbol
	err     error
}

// ptysendSymbols builds ptysend as scripts/bridge does and lists its
// symbols.
func ptysendSymbols(t *testing.T) []elf.Symbol {
	t.Helper()
	built.once.Do(func() {
		bin := filepath.Join(t.TempDir(), "ptysend")
		cmd := exec.Command("go", "build", "-o", bin, ".")
		cmd.Env = append(cmd.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = err
			t.Logf("%s", out)
			return
		}
		f, err := elf.Open(bin)
		if err != nil {
			built.err = err
			return
		}
		defer f.Close()
		built.symbols, built.err = f.Symbols()
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.symbols
}

// crypto/rand links Go's FIPS 140 module: some 150 KB of a call's
// memory for the 8 random bytes of a call's id (markers.NewID).
func TestPtysendLinksNoCrypto(t *testing.T) {
	for _, s := range ptysendSymbols(t) {
		if strings.HasPrefix(s.Name, "crypto/") || strings.HasPrefix(s.Name, "math/big.") {
			t.Fatalf("ptysend links %s", s.Name)
		}
	}
}

// go install builds with cgo wherever a C compiler is found. A package
// that needs cgo (os/user, net) then makes ptysend a dynamic program,
// which costs every call the dynamic loader and libc (~1.5 ms more to
// start on the benchmark's machine).
func TestPtysendIsStaticInACgoBuild(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "ptysend")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build with cgo: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatal("a cgo build of ptysend is dynamically linked: something it imports needs cgo (go list -deps ./cmd/ptysend | grep -x -e runtime/cgo -e os/user -e net)")
		}
	}
}
