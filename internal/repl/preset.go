package repl

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// replPresets are the prompts of well-known REPLs, by program name
// (replProgram), so that --repl-start needs no --prompt for them:
// Prompt matches the cursor line when the REPL waits for a new input,
// Continuation when it waits for the rest of one.
var replPresets = map[string]struct{ Prompt, Continuation string }{
	// python3, python, python3.12...; pdb inside it has its own prompt.
	"python": {Prompt: `^>>> `, Continuation: `^\.\.\. `},
	"node":   {Prompt: `^> `, Continuation: `^\.\.\. `},
	// psql: PROMPT1 is %/%R%x%# ("db=> ", "db=# " for a superuser,
	// "db=*> " inside a transaction); PROMPT2 has '-', '(', a quote... for %R.
	"psql": {Prompt: `^[^\s]*[=!^@][*!?]?[#>] `, Continuation: `^[^\s]*[-'"($*][*!?]?[#>] `},
	// irb: "irb(main):001:0> " (older) or "irb(main):001> "; "*" or a
	// quote instead of ">" while a statement is open.
	"irb":      {Prompt: `^irb\([^)]*\):\d+(:\d+)?> `, Continuation: "^irb\\([^)]*\\):\\d+(:\\d+)?[*'\"/\\]}`] "},
	"nix repl": {Prompt: `^nix-repl> `},
	// ghci: "ghci> " since 9.0; "Prelude> " or "*Main Data.List> " before.
	"ghci":    {Prompt: `^(ghci|\*?[A-Z][\w.]*( \*?[A-Z][\w.]*)*)> `, Continuation: `^(ghci|\*?[A-Z][\w.]*( \*?[A-Z][\w.]*)*)\| `},
	"lua":     {Prompt: `^> `, Continuation: `^>> `},
	"sqlite3": {Prompt: `^sqlite> `, Continuation: `^ *\.\.\.> `},
}

var versionSuffix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[0-9.]+$`) })

// replProgram names the REPL a command line starts: the basename of its
// first word, after variable assignments and "env", without a version
// suffix (python3.12, lua5.4); "nix repl" is two words.
func replProgram(command string) string {
	words := strings.Fields(command)
	for len(words) > 0 && (strings.Contains(words[0], "=") || words[0] == "env" || words[0] == "command") {
		words = words[1:]
	}
	if len(words) == 0 {
		return ""
	}
	name := filepath.Base(words[0])
	if name == "nix" && len(words) > 1 && words[1] == "repl" {
		return "nix repl"
	}
	switch base := versionSuffix().ReplaceAllString(name, ""); base {
	case "python", "lua", "node", "ghci", "irb":
		return base
	}
	return name
}
