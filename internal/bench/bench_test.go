package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBenchmarkSmoke runs every contender once on a real bridge, so the
// benchmark cannot rot: each ptysend call is checked for its exact output
// (the whole of seq 1 300000 included) and each bare reference for
// returning. It measures nothing.
func TestBenchmarkSmoke(t *testing.T) {
	bin, err := buildBinaries()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(bin)
	res, err := run(bin, config{Trivial: 1, Large: 1, REPL: 1, MCP: 1, Look: 1, Jobs: 1, Warmup: 0, SeqLines: 300000, MemRuns: 1}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	res.report(&out)
	report := out.String()
	t.Log("\n" + report)
	for _, want := range []string{"ptysend -- true", "ptysend -- seq 1 300000", "bare: send-keys", "MCP tools/call run", "ptysend --status", "ptysend --history", "ptysend --output=",
		"ptysend --job NAME", "ptysend --job-wait NAME", "ratio of medians", "peak memory of ptysend", "REPL eval", "ptysend --raw -- seq"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if res.farSkipped == "" { // as root, with sshd: the calls over ssh, and on a remote bridge
		for _, want := range []string{"(far shell)", "ptysend --session " + remoteName + " -- true", "bare: ssh -S CTL HOST true", "against the local bridge"} {
			if !strings.Contains(report, want) {
				t.Errorf("the report lacks %q", want)
			}
		}
	}
	for _, c := range res.comparisons {
		for _, s := range []*series{c.a, c.b} {
			if len(s.samples) != 1 || s.samples[0].elapsed <= 0 {
				t.Errorf("%s: want one timed sample, got %v", s.name, s.samples)
			}
		}
	}
	if res.replErr != nil {
		t.Fatal(res.replErr)
	}
	if res.rssSkipped == "" && (len(res.rss) != 1 || res.rss[0] <= 0) {
		t.Errorf("want ptysend's max RSS of the large output, got %v", res.rss)
	}
}

// A stand-in for the ptysend with REPLs that is being built: its --repl-eval
// runs the expression through python3 -c, so the REPL round of the
// benchmark runs before the real thing exists.
const fakeREPLPtysend = `#!/bin/bash
real=%q
case "$1" in
--help) "$real" --help; echo "      --repl-eval=EXPR";;
--repl-start|--repl-close) exit 0;;
--repl-eval) exec "$real" -- "python3 -c 'print($2)'";;
*) exec "$real" "$@";;
esac
`

func TestBenchmarkREPLRoundWithAStandIn(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	real, err := buildBinaries()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(real)
	bin := t.TempDir()
	if err := os.Symlink(filepath.Join(real, "ptybridge"), filepath.Join(bin, "ptybridge")); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(fakeREPLPtysend, filepath.Join(real, "ptysend"))
	if err := os.WriteFile(filepath.Join(bin, "ptysend"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := run(bin, config{Trivial: 1, Large: 1, REPL: 2, Warmup: 0, SeqLines: 10}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if res.replErr != nil || res.replSkipped != "" {
		t.Fatalf("the REPL round did not run: %v %s", res.replErr, res.replSkipped)
	}
	c := res.comparisons[len(res.comparisons)-1]
	if !strings.HasPrefix(c.title, "REPL eval") || len(c.a.samples) != 2 || len(c.b.samples) != 2 {
		t.Fatalf("want 2 timed REPL rounds, got %q with %d and %d samples", c.title, len(c.a.samples), len(c.b.samples))
	}
}

func TestStatistics(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 10; i++ {
		d = append(d, time.Duration(i))
	}
	if m := median(d); m != 5 { // (5+6)/2 in integer nanoseconds
		t.Errorf("median: got %v", m)
	}
	if q := quantile(d, 0.9); q != 9 {
		t.Errorf("p90: got %v", q)
	}
	if m := median(d[:3]); m != 2 {
		t.Errorf("odd median: got %v", m)
	}
}
