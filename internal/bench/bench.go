package main

import (
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// config says how many timed rounds each comparison gets.
type config struct {
	Trivial, Large, REPL int // rounds; each round times both contenders once
	MCP                  int // rounds of the MCP run against ptysend -- true
	Look                 int // rounds of each read-only mode against ptysend -- true
	Jobs                 int // rounds of a job's start and of noticing its line
	Warmup               int // untimed rounds before each comparison
	SeqLines             int // the large output: seq 1 SeqLines
	MemRuns              int // untimed runs of the large output measuring memory
}

var defaultConfig = config{Trivial: 60, Large: 15, REPL: 30, MCP: 60, Look: 30, Jobs: 30, Warmup: 3, SeqLines: 300000, MemRuns: 3}

// series is the timings of one contender.
type series struct {
	name    string
	samples []sample
}

func (s *series) add(x sample) { s.samples = append(s.samples, x) }

func (s *series) durations() []time.Duration {
	d := make([]time.Duration, len(s.samples))
	for i, x := range s.samples {
		d[i] = x.elapsed
	}
	slices.Sort(d)
	return d
}

// quantile of sorted durations, nearest rank.
func quantile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(q*float64(len(d))+0.5) - 1
	return d[max(0, min(len(d)-1, i))]
}

func median(d []time.Duration) time.Duration {
	n := len(d)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return d[n/2]
	}
	return (d[n/2-1] + d[n/2]) / 2
}

func (s *series) median() time.Duration { return median(s.durations()) }
func (s *series) p90() time.Duration    { return quantile(s.durations(), 0.9) }

// comparison is two contenders timed in alternation, and a target on the
// ratio of their medians.
type comparison struct {
	title  string
	a, b   *series
	target float64 // a's median / b's median must not exceed this
}

func (c *comparison) ratio() float64 {
	return float64(c.a.median()) / float64(c.b.median())
}

// alternate times a and b in turns, a first in even rounds and b first in
// odd ones, so that drift and order effects hit both alike. Warm-up rounds
// are run and thrown away.
func alternate(rounds, warmup int, a, b *series, runA, runB func(round int) (sample, error)) error {
	for i := -warmup; i < rounds; i++ {
		first, second := runA, runB
		sa, sb := a, b
		if i%2 != 0 {
			first, second, sa, sb = runB, runA, b, a
		}
		x, err := first(i)
		if err != nil {
			return err
		}
		y, err := second(i)
		if err != nil {
			return err
		}
		if i >= 0 {
			sa.add(x)
			sb.add(y)
		}
	}
	return nil
}

// settled wraps a contender so that it starts with the pane's shell idle;
// the wait is not timed.
func settled(w *world, f func(round int) (sample, error)) func(int) (sample, error) {
	return func(round int) (sample, error) {
		if err := w.settle(); err != nil {
			return sample{}, err
		}
		return f(round)
	}
}

// results is everything one run measured.
type results struct {
	comparisons []*comparison
	replSkipped string // why the REPL eval was not measured, if it was not
	replErr     error  // how measuring it failed
	farSkipped  string // why calls over ssh were not measured, if they were not
	outputBytes int
	rss         []int64 // ptysend's max RSS for each memory run
	rssSkipped  string  // why memory was not measured, if it was not
	build       string  // how ptysend was linked
}

// run measures everything on one private bridge.
func run(bin string, cfg config, progress io.Writer) (*results, error) {
	w, err := newWorld(bin)
	if err != nil {
		return nil, err
	}
	defer w.close()
	res := &results{build: linkage(filepath.Join(bin, "ptysend"))}

	// 1. The trivial call against the bare reference.
	fmt.Fprintf(progress, "trivial call: %d rounds...\n", cfg.Trivial)
	trivial := &comparison{
		title:  "trivial call",
		a:      &series{name: "ptysend -- true"},
		b:      &series{name: "bare: send-keys 'true; tmux wait-for -S C' + wait-for C"},
		target: 0.85, // the one-core issue's
	}
	err = alternate(cfg.Trivial, cfg.Warmup, trivial.a, trivial.b,
		settled(w, func(int) (sample, error) { return w.ptysendExpect("", "--", "true") }),
		settled(w, func(i int) (sample, error) { return w.bare("true", i) }))
	if err != nil {
		return nil, err
	}
	res.comparisons = append(res.comparisons, trivial)

	// 1b. An MCP run of the trivial call, the server running, against the
	// trivial call, when this ptysend serves MCP.
	if cfg.MCP > 0 && hasMCP(w) {
		fmt.Fprintf(progress, "MCP run: %d rounds...\n", cfg.MCP)
		c, err := measureMCP(w, cfg)
		if err != nil {
			return nil, err
		}
		res.comparisons = append(res.comparisons, c)
	}

	// 1c. The read-only modes against the trivial call.
	if cfg.Look > 0 && hasLook(w) {
		fmt.Fprintf(progress, "read-only modes: %d rounds each...\n", cfg.Look)
		cs, err := measureLook(w, cfg)
		if err != nil {
			return nil, err
		}
		res.comparisons = append(res.comparisons, cs...)
	}

	// 1d. Jobs: starting one against the trivial call, and noticing a line
	// it prints against tmux's own wait-for, when this ptysend runs jobs.
	if cfg.Jobs > 0 && hasJobs(w) {
		fmt.Fprintf(progress, "jobs: %d rounds each...\n", cfg.Jobs)
		cs, err := measureJobs(w, cfg)
		if err != nil {
			return nil, err
		}
		res.comparisons = append(res.comparisons, cs...)
	}

	// 2. A large output, checked whole, against the bare reference (whose
	// output goes to the pane only).
	seq := fmt.Sprintf("seq 1 %d", cfg.SeqLines)
	want := seqOutput(cfg.SeqLines)
	res.outputBytes = len(want)
	fmt.Fprintf(progress, "large output (%s, %d bytes): %d rounds...\n", seq, len(want), cfg.Large)
	large := &comparison{
		title:  fmt.Sprintf("large output (%s, %.2f MB)", seq, float64(len(want))/1e6),
		a:      &series{name: "ptysend -- " + seq},
		b:      &series{name: "bare: send-keys '" + seq + "; tmux wait-for -S C' + wait-for C"},
		target: 1.2, // the one-core issue's
	}
	err = alternate(cfg.Large, cfg.Warmup, large.a, large.b,
		settled(w, func(int) (sample, error) { return w.ptysendExpect(want, "--", seq) }),
		settled(w, func(i int) (sample, error) { return w.bare(seq, i+1_000_000) }))
	if err != nil {
		return nil, err
	}
	res.comparisons = append(res.comparisons, large)

	// 2b. What clean text costs: the same output, cleaned (the default)
	// against --raw.
	fmt.Fprintf(progress, "clean text vs --raw (%s): %d rounds...\n", seq, cfg.Large)
	clean := &comparison{
		title:  fmt.Sprintf("clean text (%s)", seq),
		a:      &series{name: "ptysend -- " + seq},
		b:      &series{name: "ptysend --raw -- " + seq},
		target: 1.1,
	}
	err = alternate(cfg.Large, cfg.Warmup, clean.a, clean.b,
		settled(w, func(int) (sample, error) { return w.ptysendExpect(want, "--", seq) }),
		settled(w, func(int) (sample, error) { return w.ptysendExpect(want, "--raw", "--", seq) }))
	if err != nil {
		return nil, err
	}
	res.comparisons = append(res.comparisons, clean)

	// 3. ptysend's peak memory for the large output, in runs of its own.
	for range cfg.MemRuns {
		if err := w.settle(); err != nil {
			return nil, err
		}
		rss, err := w.peakRSS(want, "--", seq)
		if errors.Is(err, errNoGNUTime) {
			res.rssSkipped = err.Error()
			break
		}
		if err != nil {
			return nil, err
		}
		res.rss = append(res.rss, rss)
	}

	// 4. Calls in a far shell over ssh to localhost, against the bare
	// reference over the same ssh, and on a remote bridge, against bare ssh
	// over its master. The pane is back in its shell after.
	far, why, err := measureSSH(w, cfg, progress)
	if err != nil {
		return nil, err
	}
	res.comparisons = append(res.comparisons, far...)
	res.farSkipped = why

	// 5. A REPL eval against the trivial call, when ptysend has REPLs. A
	// failure here is reported with the figures above, not instead of them.
	if ok, why := hasREPL(w); !ok {
		res.replSkipped = why
		return res, nil
	}
	fmt.Fprintf(progress, "REPL eval: %d rounds...\n", cfg.REPL)
	repl, err := measureREPL(w, cfg)
	if err != nil {
		res.replErr = err
		return res, nil
	}
	res.comparisons = append(res.comparisons, repl)
	return res, nil
}

// measureREPL times `ptysend --repl-eval '1 + 1'` in python3 against
// `ptysend -- true`. A shell command cannot run while the REPL holds the
// pane, so each round is: a trivial call, start python3, one untimed
// eval, one timed eval, close. Starting and closing are not timed.
func measureREPL(w *world, cfg config) (*comparison, error) {
	repl := &comparison{
		title:  "REPL eval (python3)",
		a:      &series{name: "ptysend --repl-eval '1 + 1'"},
		b:      &series{name: "ptysend -- true"},
		target: 2.0,
	}
	printsTwo := func(out string) bool { return strings.TrimSpace(out) == "2" }
	anything := func(string) bool { return true }
	for i := -cfg.Warmup; i < cfg.REPL; i++ {
		if err := w.settle(); err != nil {
			return nil, err
		}
		t, err := w.ptysendExpect("", "--", "true")
		if err != nil {
			return nil, err
		}
		if _, err := w.ptysendCheck(anything, "--repl-start", "python3"); err != nil {
			return nil, err
		}
		if _, err := w.ptysendCheck(printsTwo, "--repl-eval", "1 + 1"); err != nil {
			return nil, err
		}
		e, err := w.ptysendCheck(printsTwo, "--repl-eval", "1 + 1")
		if err != nil {
			return nil, err
		}
		if _, err := w.ptysendCheck(anything, "--repl-close"); err != nil {
			return nil, err
		}
		if i >= 0 {
			repl.a.add(e)
			repl.b.add(t)
		}
	}
	return repl, nil
}

// hasREPL reports whether this ptysend can drive REPLs.
func hasREPL(w *world) (bool, string) {
	out, _ := exec.Command(filepath.Join(w.bin, "ptysend"), "--help").CombinedOutput()
	if !strings.Contains(string(out), "--repl-eval") {
		return false, "ptysend has no --repl-eval yet"
	}
	if _, err := exec.LookPath("python3"); err != nil {
		return false, "python3 is not installed"
	}
	return true, ""
}

// report prints the figures, the ratios and whether each target is met.
func (r *results) report(out io.Writer) {
	fmt.Fprintf(out, "ptybridge benchmark, %s\n", machine())
	fmt.Fprintf(out, "ptysend binary: %s\n", r.build)
	fmt.Fprintln(out, "(contenders alternate on the same bridge pane; ratios of medians from the same run are what count)")
	for _, c := range r.comparisons {
		fmt.Fprintf(out, "\n%s\n", c.title)
		for _, s := range []*series{c.a, c.b} {
			fmt.Fprintf(out, "  %-66s n=%-3d median %8s  p90 %8s\n", s.name, len(s.samples), ms(s.median()), ms(s.p90()))
		}
		fmt.Fprintf(out, "  ratio of medians %.2fx (target <= %.2gx): %s\n", c.ratio(), c.target, verdict(c.ratio() <= c.target))
	}
	if r.replErr != nil {
		fmt.Fprintf(out, "\nREPL eval: FAILED: %v\n", r.replErr)
	}
	if r.replSkipped != "" {
		fmt.Fprintf(out, "\nREPL eval: not measured (%s)\n", r.replSkipped)
	}
	if r.farSkipped != "" {
		fmt.Fprintf(out, "\ncalls over ssh: not measured (%s)\n", r.farSkipped)
	}
	if r.rssSkipped != "" {
		fmt.Fprintf(out, "\npeak memory of ptysend: not measured (%s)\n", r.rssSkipped)
	}
	if len(r.rss) > 0 {
		rss := slices.Clone(r.rss)
		slices.Sort(rss)
		peak := rss[len(rss)-1]
		ratio := float64(peak) / float64(r.outputBytes)
		fmt.Fprintf(out, "\npeak memory of ptysend for the large output\n")
		fmt.Fprintf(out, "  max RSS %.1f MiB (highest of %d runs) for %.2f MB of output: %.2fx (target <= 3x): %s\n",
			mib(peak), len(rss), float64(r.outputBytes)/1e6, ratio, verdict(ratio <= 3))
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT MET"
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// linkage says whether a binary is static or dynamic (a cgo build, slower
// to start).
func linkage(path string) string {
	f, err := elf.Open(path)
	if err != nil {
		return "unknown linkage (" + err.Error() + ")"
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return "dynamically linked (a cgo build; scripts/bridge builds with CGO_ENABLED=0)"
		}
	}
	return "statically linked"
}

// machine describes where the figures come from.
func machine() string {
	osName := runtime.GOOS
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "PRETTY_NAME="); ok {
				osName = strings.Trim(v, `"`)
			}
		}
	}
	tmuxV, _ := exec.Command("tmux", "-V").Output()
	return fmt.Sprintf("%s: %d cores, %s, %s, %s", time.Now().Format("2006-01-02"), runtime.NumCPU(), osName,
		strings.TrimSpace(string(tmuxV)), runtime.Version())
}
