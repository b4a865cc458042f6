package main

import (
	"io"
	"os"
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
	res, err := run(bin, config{Trivial: 1, Large: 1, REPL: 1, Warmup: 0, SeqLines: 300000, MemRuns: 1}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	res.report(&out)
	report := out.String()
	t.Log("\n" + report)
	for _, want := range []string{"ptysend -- true", "ptysend -- seq 1 300000", "bare: send-keys", "ratio of medians", "peak memory of ptysend", "REPL eval"} {
		if !strings.Contains(report, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	for _, c := range res.comparisons {
		for _, s := range []*series{c.a, c.b} {
			if len(s.samples) != 1 || s.samples[0].elapsed <= 0 {
				t.Errorf("%s: want one timed sample, got %v", s.name, s.samples)
			}
		}
	}
	if res.rssSkipped == "" && (len(res.rss) != 1 || res.rss[0] <= 0) {
		t.Errorf("want ptysend's max RSS of the large output, got %v", res.rss)
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
