package mcpserver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ptybridge/ptybridge/internal/modes"
)

func TestMessagesAreSaidInTheToolsWords(t *testing.T) {
	w := newWords(modes.All())
	for cli, tools := range map[string]string{
		"if the command is slow but quiet, rerun it with a larger --timeout, e.g. --timeout 60":                   "if the command is slow but quiet, rerun it with a larger timeout, e.g. timeout: 60",
		"or rerun with --wait-free DURATION (e.g. --wait-free 2m) to have ptysend wait for it":                    `or rerun with wait_free (e.g. wait_free: "2m") to have ptybridge wait for it`,
		"next offset 61 (--job-output web --since 61 prints what comes after)":                                    `next offset 61 (job_output with name: "web", since: 61 prints what comes after)`,
		"the job also wrote 12 bytes to stderr: --job-output web --stderr":                                        `the job also wrote 12 bytes to stderr: job_output with name: "web", stderr: true`,
		"give --env KEY=VALUE, e.g. --env PORT=8080":                                                              `give env, e.g. env: ["PORT=8080"]`,
		"start it again with ptysend --repl-start python3; ptysend -- CMD runs shell commands again":              `start it again with repl_start with command: "python3"; run runs shell commands again`,
		"run it as a job: ptysend --job NAME -- CMD, then --job-keys NAME -- KEYS and --job-screen NAME":          "run it as a job: job_start, then job_keys and job_screen",
		"to let the user answer in the shared terminal, run it with --stdin=terminal":                             "to let the user answer in the shared terminal, run it without stdin",
		"use Go regexp syntax, e.g. --prompt '^>>> '":                                                             `use Go regexp syntax, e.g. prompt: "^>>> "`,
		"ptysend --history lists the commands it holds; --history=20":                                             "history lists the commands it holds; history with count: 20",
		"no output for 10s (--timeout)":                                                                           "no output for 10s (timeout)",
		"another ptysend call holds the terminal":                                                                 "another call holds the terminal",
		"to send there, use --session web1; ask the user to open it with: ptybridge --session web1":               `to send there, use session: "web1"; ask the user to open it with: ptybridge --session web1`,
		"it runs the command as you typed it: docker run -it --rm debian":                                         "it runs the command as you typed it: docker run -it --rm debian",
		"a job name is 1 to 40 letters, digits, '-' and '_', e.g. --job dev-server":                               `a job name is 1 to 40 letters, digits, '-' and '_', e.g. job_start with name: "dev-server"`,
		"evaluate in it with ptysend --repl-eval EXPR, or leave it with ptysend --repl-close":                     "evaluate in it with repl_eval, or leave it with repl_close",
		"it goes with --job-output or --job-screen":                                                               "it goes with job_output or job_screen",
		"wait longer with a larger --max-time (0: no limit), or look at its output with ptysend --job-output web": `wait longer with a larger max_time (0: no limit), or look at its output with job_output with name: "web"`,
	} {
		if got := w.say(cli); got != tools {
			t.Errorf("%q\n got: %q\nwant: %q", cli, got, tools)
		}
	}
}

// notMessages are string literals with flags that no agent reads: the command lines ptysend
// builds for tmux and its helpers, kong's internal flags, and other programs' examples.
var notMessages = regexp.MustCompile(`(?s)^(exec |.*json:"|--(help|version|json|ptysend|command-timeout|stdin=terminal|remote-argv|remote-call|remote-stop)$| --relay|--relay|--job-(spare|supervise)|--late-stderr|--(chdir|chroot|close-from|command|group|login|other-user|role|session-command|shell|supp-group|type|user|whitelist-environment|host|confirm-ask)$|.*(docker run|unshare --|su --command|some-tool --serve|irb --simple-prompt))`)

// TestEveryMessageOfPtysendSpeaksTheToolsWords reads every string literal of ptysend's packages
// that names a flag or ptysend, as a message an MCP result may carry, and checks that the tools'
// words leave no flag and no program name but the user's (ptybridge --FLAG, to ask them to run).
func TestEveryMessageOfPtysendSpeaksTheToolsWords(t *testing.T) {
	w := newWords(modes.All())
	cliWords := regexp.MustCompile(`ptysend|(^|[^\w-])--[a-z]`)
	checked := 0
	for _, lit := range messageLiterals(t, "..") {
		if notMessages.MatchString(lit) || !cliWords.MatchString(lit) {
			continue
		}
		checked++
		said := strings.ReplaceAll(w.say(lit), "ptybridge --", "ptybridge ")
		if loc := cliWords.FindStringIndex(said); loc != nil {
			t.Errorf("%q is said as %q: %q is the command line's", lit, w.say(lit), said[loc[0]:])
		}
	}
	if checked < 50 {
		t.Fatalf("only %d messages with flags found: is the scan reading the packages?", checked)
	}
}

// messageLiterals are the string literals of the non-test Go files under dir, but for the
// packages that print only to the user or run only in tests.
func messageLiterals(t *testing.T, dir string) []string {
	var lits []string
	// modes/cli.go: the command line's own usage; remote/attach: ptybridge --host's, for the human.
	skip := []string{"bench", "bridgetest", "e2e", "mcpserver", "cli.go", "attach"}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if slices.Contains(skip, d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if l, ok := n.(*ast.BasicLit); ok && l.Kind == token.STRING {
				if s, err := strconv.Unquote(l.Value); err == nil {
					lits = append(lits, s)
				}
			}
			return true
		})
		return nil
	})
	return lits
}

// cliOnly are the command line's flags that no tool takes, and why.
var cliOnly = map[string]string{
	"json":  "every tool's result is structured",
	"stdin": "run's stdin is the text to forward; without it the command reads the terminal, as --stdin=terminal",
	"words": "the command's words are run's command",
}

// TestEveryFlagOfAModeIsAParameterOfItsTool enumerates the command line's flags of each mode
// that has a tool, and the options it takes, and finds each among the tool's parameters.
func TestEveryFlagOfAModeIsAParameterOfItsTool(t *testing.T) {
	for _, m := range modes.All() {
		about := m.About()
		if about.Tool == "" {
			continue
		}
		in := inputSchema(reflect.TypeOf(m).Elem(), about)
		var flags []string
		typ := reflect.TypeOf(m).Elem()
		for i := range typ.NumField() {
			if f := typ.Field(i); flagName(f) != "" && f.Tag.Get("hidden") == "" {
				flags = append(flags, flagName(f))
			}
		}
		for opt, bit := range map[string]modes.Takes{"timeout": modes.TakesLimits, "max-time": modes.TakesLimits,
			"raw": modes.TakesRaw, "wait-free": modes.TakesWaitFree, "json": modes.TakesJSON} {
			if about.Takes&bit != 0 {
				flags = append(flags, opt)
			}
		}
		flags = append(flags, "session")
		w := newWords([]modes.Mode{m})
		for i, flag := range flags {
			if _, ok := cliOnly[flag]; ok {
				continue
			}
			fw, ok := w[flag]
			switch {
			case i == 0 && fw.tool == about.Tool:
				// The mode's own flag: its value, if any, is a parameter.
				if fw.param != "" && in.Properties[fw.param] == nil {
					t.Errorf("%s: --%s's value has no parameter %s", about.Tool, flag, fw.param)
				}
			case !ok || in.Properties[fw.param] == nil:
				t.Errorf("%s: the command line's --%s is no parameter of the tool (or list it in cliOnly, saying why)", about.Tool, flag)
			}
		}
	}
}
