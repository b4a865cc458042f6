package repl

import (
	"fmt"
	"regexp"
	"strings"
)

// An evaluation that raised an error prints what the REPL printed, as any other; what tells it
// apart is the REPL's own report of it (a python traceback, node's "Uncaught ..."), which its
// preset's Error pattern matches in the response. ptysend then says so on stderr and exits
// ExitEvalError, so that the agent (and an MCP client) sees it without reading the output. A
// REPL with no preset (--prompt alone) has no pattern: its evaluations exit 0.

// ExitEvalError is --repl-eval's status when the REPL reported an error.
const ExitEvalError = 1

// errorReport is the line of response where the REPL program reports an error: the first line
// of the pattern's first group that matched, else of its match.
func errorReport(program, response string) (string, bool) {
	pattern := replPresets[program].Error
	if pattern == "" {
		return "", false
	}
	re := regexp.MustCompile(pattern) // the one needed only: ptysend evaluates once a process
	loc := re.FindStringSubmatchIndex(response)
	if loc == nil {
		return "", false
	}
	from, to := loc[0], loc[1]
	for i := 2; i+1 < len(loc); i += 2 {
		if loc[i] >= 0 {
			from, to = loc[i], loc[i+1]
			break
		}
	}
	line, _, _ := strings.Cut(response[from:to], "\n")
	return strings.TrimSpace(line), true
}

// verdict is the evaluation's status once the REPL is back at its prompt: ExitEvalError, with
// a note naming the error, when the response reports one.
func (r *run) verdict() (int, error) {
	line, ok := errorReport(r.rec.Program, r.out.response())
	if !ok {
		return 0, nil
	}
	if runes := []rune(line); len(runes) > 200 {
		line = string(runes[:200]) + "…"
	}
	fmt.Fprintf(r.c.Req.Notes, "ptysend: note: the evaluation raised an error (%s: %s)\n", r.rec.Program, line)
	return ExitEvalError, nil
}
