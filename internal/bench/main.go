// Command bench measures what a ptysend call costs against bare tmux, on
// one private bridge, and prints medians, p90s and ratios: a trivial call
// and a large output against the least tmux itself needs (send-keys, then
// wait-for signalled from the pane), an MCP run, the read-only modes and a
// REPL eval against the trivial call, a job's start against the trivial
// call and how soon a waiting --job-wait notices a line against tmux's
// wait-for, ptysend's peak memory for the large output, and, as root with
// sshd, calls over ssh: in a far shell, and on a remote bridge against bare
// ssh over its master. Run it with scripts/bench.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	cfg := defaultConfig
	flag.IntVar(&cfg.Trivial, "trivial", cfg.Trivial, "timed rounds of the trivial call")
	flag.IntVar(&cfg.Large, "large", cfg.Large, "timed rounds of the large output")
	flag.IntVar(&cfg.REPL, "repl", cfg.REPL, "timed rounds of the REPL eval")
	flag.IntVar(&cfg.MCP, "mcp", cfg.MCP, "timed rounds of the MCP run")
	flag.IntVar(&cfg.Look, "look", cfg.Look, "timed rounds of each read-only mode (--status, --history, --output)")
	flag.IntVar(&cfg.Jobs, "jobs", cfg.Jobs, "timed rounds of a job's start and of noticing a line it prints")
	flag.IntVar(&cfg.Warmup, "warmup", cfg.Warmup, "untimed rounds before each comparison")
	flag.IntVar(&cfg.SeqLines, "lines", cfg.SeqLines, "lines of the large output (seq 1 N)")
	flag.IntVar(&cfg.MemRuns, "mem", cfg.MemRuns, "runs of the large output measuring peak memory")
	binDir := flag.String("bin", "", "directory holding ptybridge, ptysend and ptysend-mcp (default: build them)")
	flag.Parse()

	bin := *binDir
	if bin == "" {
		dir, err := buildBinaries()
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
		bin = dir
	}
	res, err := run(bin, cfg, os.Stderr)
	if err != nil {
		fail(err)
	}
	res.report(os.Stdout)
	if res.replErr != nil {
		os.Exit(1)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench: error:", err)
	os.Exit(1)
}
