package repl

import (
	"regexp"
	"testing"
)

func TestReplProgramFindsThePresetName(t *testing.T) {
	cases := map[string]string{
		"python3":                     "python",
		"python3.12 -q":               "python",
		"/usr/bin/python":             "python",
		"PYTHONSTARTUP= python3 -i x": "python",
		"env FOO=1 node":              "node",
		"nix repl '<nixpkgs>'":        "nix repl",
		"nix build":                   "nix",
		"psql -h db app":              "psql",
		"lua5.4":                      "lua",
		"ghci -XGADTs":                "ghci",
		"sqlite3 test.db":             "sqlite3",
		"irb --simple-prompt":         "irb",
		"":                            "",
	}
	for cmd, want := range cases {
		if got := replProgram(cmd); got != want {
			t.Errorf("replProgram(%q) = %q, want %q", cmd, got, want)
		}
	}
}

// Each preset against prompts copied from the real programs: it must take
// its prompt, and must not take its continuation prompt or ordinary output
// for one.
func TestPresetsMatchTheRealPrompts(t *testing.T) {
	cases := []struct {
		program        string
		prompts, conts []string
		notPrompts     []string
	}{
		{"python", []string{">>> ", ">>> x = 1"}, []string{"... ", "...     return x"}, []string{">>>", "... ", "a >>> "}},
		{"node", []string{"> ", "> [1, 2]"}, []string{"... "}, []string{">", "... ", "x > y"}},
		{"psql", []string{"postgres=# ", "app=> ", "app=*> ", "app!> "}, []string{"app-> ", "app(> ", "app'> ", "app-# "}, []string{"app-> ", "(1 row)", " id | name "}},
		{"irb", []string{"irb(main):001:0> ", "irb(main):012> "}, []string{"irb(main):002:0* ", "irb(main):003* ", "irb(main):004:0\" "}, []string{"irb(main):002:0* ", "=> 42"}},
		{"nix repl", []string{"nix-repl> "}, nil, []string{"nix-repl>", "Welcome to Nix 2.18. Type :? for help."}},
		{"ghci", []string{"ghci> ", "Prelude> ", "*Main> ", "Prelude Data.List> "}, []string{"ghci| ", "Prelude| "}, []string{"ghci| ", "[1,2,3]"}},
		{"lua", []string{"> "}, []string{">> "}, []string{">> ", "nil"}},
		{"sqlite3", []string{"sqlite> "}, []string{"   ...> "}, []string{"   ...> ", "1|a"}},
	}
	for _, c := range cases {
		p, ok := replPresets[c.program]
		if !ok {
			t.Errorf("no preset for %s", c.program)
			continue
		}
		prompt := regexp.MustCompile(p.Prompt)
		for _, s := range c.prompts {
			if !prompt.MatchString(s) {
				t.Errorf("%s: prompt %q not matched by %s", c.program, s, p.Prompt)
			}
		}
		for _, s := range c.notPrompts {
			if prompt.MatchString(s) {
				t.Errorf("%s: %q taken for a prompt by %s", c.program, s, p.Prompt)
			}
		}
		if len(c.conts) == 0 {
			continue
		}
		cont := regexp.MustCompile(p.Continuation)
		for _, s := range c.conts {
			if !cont.MatchString(s) {
				t.Errorf("%s: continuation %q not matched by %s", c.program, s, p.Continuation)
			}
		}
	}
}
