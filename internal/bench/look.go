package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// measureLook times the read-only modes, --status, --history and
// --output, each against `ptysend -- true`, alternating: they ask the
// relay's socket and /proc, with no tmux process, and must cost at
// most half a trivial call (target 0.5x).
func measureLook(w *world, cfg config) ([]*comparison, error) {
	out := &outputTarget{w: w}
	modes := []struct {
		name string
		args func() []string
		ok   func(string) bool
	}{
		{"ptysend --status", func() []string { return []string{"--status"} },
			func(out string) bool { return strings.Contains(out, "state: idle") }},
		{"ptysend --history", func() []string { return []string{"--history"} },
			func(out string) bool {
				n := strings.Count(out, "\n")
				return n >= 1 && n <= 10 && strings.Contains(out, "  agent  ")
			}},
		{"ptysend --output=ID", func() []string { return []string{fmt.Sprintf("--output=%d", out.id)} },
			func(s string) bool { return s == "some output\n" }},
	}
	var cs []*comparison
	for _, m := range modes {
		c := &comparison{
			title:  "read-only query: " + m.name,
			a:      &series{name: m.name},
			b:      &series{name: "ptysend -- true"},
			target: 0.5,
		}
		query := func(int) (sample, error) {
			if err := out.fresh(); err != nil {
				return sample{}, err
			}
			return w.ptysendCheck(m.ok, m.args()...)
		}
		err := alternate(cfg.Look, cfg.Warmup, c.a, c.b, settled(w, query),
			settled(w, func(int) (sample, error) { return w.ptysendExpect("", "--", "true") }))
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	return cs, nil
}

// outputTarget is a command of the agent's with some output, whose id
// --output asks for. It is run again (untimed) before the history, which
// keeps the last 100 commands, can have let it go.
type outputTarget struct {
	w     *world
	id    int
	calls int
}

func (o *outputTarget) fresh() error {
	o.calls++
	if o.id != 0 && o.calls < 40 {
		return nil
	}
	o.calls = 0
	if _, err := o.w.ptysendExpect("some output\n", "--", "echo some output"); err != nil {
		return err
	}
	r, err := o.w.ptysend("--history=1", "--json")
	var last struct {
		ID      int    `json:"id"`
		Command string `json:"command"`
	}
	if err != nil || r.code != 0 || json.Unmarshal([]byte(r.stdout), &last) != nil || last.Command != "echo some output" {
		return fmt.Errorf("ptysend --history=1 --json: %v, exit %d, stdout %q, stderr %q", err, r.code, r.stdout, r.stderr)
	}
	o.id = last.ID
	return o.w.settle()
}

// hasLook reports whether this ptysend has the read-only modes.
func hasLook(w *world) bool {
	out, _ := exec.Command(filepath.Join(w.bin, "ptysend"), "--help").CombinedOutput()
	return strings.Contains(string(out), "--history")
}
