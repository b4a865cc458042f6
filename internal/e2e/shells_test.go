package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// testShell is one shell the human may use in the shared terminal, with
// the few commands of the contract whose syntax differs between shells.
type testShell struct {
	name    string // the program, looked up on PATH
	pkg     string // the Debian package that provides it
	rcFile  string // its startup file, relative to $HOME
	setVars string // cd to /usr/share and export PTB_VAR=kept
}

// shells are all the shells ptysend supports. Each must be installed: a
// missing one fails the tests instead of skipping them, so CI never
// passes without having tried every shell.
var shells = []testShell{
	{name: "bash", pkg: "bash", rcFile: ".bashrc", setVars: "cd /usr/share && export PTB_VAR=kept"},
	{name: "zsh", pkg: "zsh", rcFile: ".zshrc", setVars: "cd /usr/share && export PTB_VAR=kept"},
	{name: "fish", pkg: "fish", rcFile: ".config/fish/config.fish", setVars: "cd /usr/share; and set -x PTB_VAR kept"},
	{name: "dash", pkg: "dash", rcFile: ".profile", setVars: "cd /usr/share && export PTB_VAR=kept"},
}

// path finds the shell, failing the test when it is not installed.
func (sh testShell) path(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath(sh.name)
	if err != nil {
		t.Fatalf("%s is not installed, and every supported shell must be tested: install it (apt-get install %s; .ci/run does)", sh.name, sh.pkg)
	}
	return p
}

// shellByName is the entry of shells for name.
func shellByName(t *testing.T, name string) testShell {
	t.Helper()
	for _, sh := range shells {
		if sh.name == name {
			return sh
		}
	}
	t.Fatalf("no shell %q in the table", name)
	return testShell{}
}

// startShellBridge opens the shared terminal with sh as the human's shell.
func startShellBridge(t *testing.T, sh testShell, opts ...option) *bridge {
	t.Helper()
	return startBridge(t, append([]option{withShell(sh.path(t))}, opts...)...)
}

func TestEveryShellKeepsTheContract(t *testing.T) {
	long := strings.Repeat("abcdefghij", 550) // 5,500 characters
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			t.Run("stdout, stderr and status apart", func(t *testing.T) {
				r := b.send("--", "echo out; echo err >&2; sh -c 'exit 3'")
				if r.stdout != "out\n" || r.stderr != "err\n" || r.code != 3 {
					t.Fatalf("want stdout \"out\\n\", stderr \"err\\n\", exit 3; got:\n%v", r)
				}
			})
			t.Run("the human sees the agent's command, not the wrapper's line", func(t *testing.T) {
				b.run("--", "echo shown-to-the-human")
				pane := b.paneText()
				if !strings.Contains(pane, "[agent] $ echo shown-to-the-human\nshown-to-the-human") ||
					strings.Contains(pane, ".sh'") || strings.Contains(pane, "source '") {
					t.Fatalf("want [agent] $ COMMAND and its output, no wrapper's path; the pane shows:\n%s", pane)
				}
			})
			t.Run("cd and exported variables persist", func(t *testing.T) {
				b.run("--", sh.setVars)
				if got := b.run("--", `pwd; sh -c 'echo "$PTB_VAR"'`); got != "/usr/share\nkept\n" {
					t.Fatalf("got %q", got)
				}
			})
			t.Run("stdin is forwarded", func(t *testing.T) {
				r := b.sendWith(strings.NewReader("line one\nline\ttwo\n"), "--", "cat; echo end")
				if r.code != 0 || r.stdout != "line one\nline\ttwo\nend\n" {
					t.Fatalf("got:\n%v", r)
				}
			})
			for _, c := range []struct{ name, cmd, want string }{
				{"a literal TAB", "printf '%s\\n' 'a\tb'", "a\tb\n"},
				{"5,000+ characters", "echo " + long, long + "\n"},
				{"several lines", "echo one\necho two\necho three", "one\ntwo\nthree\n"},
				{"quotes", `echo "double" 'single' "it's"`, "double single it's\n"},
				// printf, not echo: the echo of zsh and dash reads backslashes.
				{"dollars and backslashes", `printf '%s|' "\$HOME" '$HOME' \\ 'a\b' 'it''s'`, "$HOME|$HOME|\\|a\\b|its|"},
				{"no trailing newline", "printf 'last'", "last"},
			} {
				t.Run(c.name, func(t *testing.T) {
					if r := b.send("--", c.cmd); r.code != 0 || r.stdout != c.want {
						t.Fatalf("want stdout %q and exit 0, got:\n%v", c.want, r)
					}
				})
			}
			t.Run("stderr shows in the terminal, exact and apart from stdout", func(t *testing.T) {
				outs, errs := interleavedFiles(t, b)
				// cat, >&2 and ; are the same in all four shells.
				var cmd []string
				for i := range outs {
					cmd = append(cmd, "cat "+outs[i].path, "cat "+errs[i].path+" >&2")
				}
				r := b.send("--", strings.Join(cmd, "; "))
				wantOut, wantErr := joined(outs), joined(errs)
				if r.code != 0 || r.stdout != wantOut || r.stderr != wantErr {
					t.Fatalf("want exit 0, stdout %q, stderr %q; got:\n%v", abbrev(wantOut), abbrev(wantErr), r)
				}
				// The last part has no newline: the prompt follows it on its line.
				for _, line := range []string{"stderr part 0 ends here", "stderr part 2 ends here"} {
					if !slices.ContainsFunc(b.paneLines(), func(l string) bool { return strings.Contains(l, line) }) {
						t.Fatalf("the terminal does not show %q; the pane shows:\n%s", line, b.paneText())
					}
				}
			})
			t.Run("a question on stderr without a newline shows, and the human answers it", func(t *testing.T) {
				call := b.start(true, "--", "printf 'Your answer? ' >&2; head -n 1")
				b.waitFor("the question on the cursor line", func() bool {
					lines := b.paneLines()
					return slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "Your answer? ") })
				})
				time.Sleep(humanReaction)
				b.terms[0].typeKeys("forty-two\r")
				r := call.wait(t)
				// The terminal's echo of the answer is the human's, not output
				// (clean text takes it out); then head prints the answer.
				if r.code != 0 || r.stdout != "forty-two\n" {
					t.Fatalf("want exit 0 and the answer, got:\n%v", r)
				}
				if !strings.HasPrefix(r.stderr, "Your answer? ") || strings.Count(r.stderr, theTerminalAsks("Your answer?")) != 1 {
					t.Fatalf("want the question, then one note about it, on stderr; got %q", r.stderr)
				}
			})
			t.Run("a syntax error fails with a message and ends the call", func(t *testing.T) {
				r := b.send("--", "echo (")
				if r.code == 0 || r.stdout != "" || r.stderr == "" {
					t.Fatalf("want a failure with a message on stderr only, got:\n%v", r)
				}
				expectUsable(t, b)
			})
			t.Run("the no-output timeout's Ctrl-C leaves the shell usable", func(t *testing.T) {
				r := b.send("--timeout", "1", "--", "echo started; sleep 300")
				if r.code != 124 || r.stdout != "started\n" || !strings.Contains(r.stderr, "Ctrl-C") {
					t.Fatalf("want exit 124 after Ctrl-C with the output so far:\n%v", r)
				}
				expectUsable(t, b)
			})
			t.Run("Ctrl-\\ stops what ignores Ctrl-C and leaves the shell usable", func(t *testing.T) {
				r := b.send("--timeout", "1", "--", `sh -c 'trap "" INT; echo stubborn; sleep 300'`)
				if r.code != 124 || r.stdout != "stubborn\n" || !strings.Contains(r.stderr, `Ctrl-\`) {
					t.Fatalf("want exit 124 after Ctrl-\\:\n%v", r)
				}
				expectUsable(t, b)
			})
		})
	}
}

// part is one file of output for a command to cat.
type part struct{ path, content string }

// interleavedFiles writes three parts of stdout and three of stderr for a
// command to print in turn: a few KB of stderr with TABs, CRs, UTF-8 and
// bytes that are not, and no trailing newline; plain lines of stdout.
func interleavedFiles(t *testing.T, b *bridge) (outs, errs []part) {
	t.Helper()
	dir := t.TempDir()
	for i := range 3 {
		var e strings.Builder
		for j := range 40 {
			fmt.Fprintf(&e, "err %d.%d\tcol\x01\r\xff\xfe é 🎉 %s\n", i, j, strings.Repeat("x", j))
		}
		fmt.Fprintf(&e, "stderr part %d ends here", i)
		if i < 2 {
			e.WriteString("\n")
		}
		out := fmt.Sprintf("out %d\n\tindented\n", i)
		outs = append(outs, writePart(t, dir, fmt.Sprintf("out%d", i), out))
		errs = append(errs, writePart(t, dir, fmt.Sprintf("err%d", i), e.String()))
	}
	if b.user != nil {
		must(t, b.user.Own(dir))
	}
	return outs, errs
}

func writePart(t *testing.T, dir, name, content string) part {
	t.Helper()
	p := filepath.Join(dir, name)
	must(t, os.WriteFile(p, []byte(content), 0o644))
	return part{p, content}
}

func joined(parts []part) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.content)
	}
	return b.String()
}

// abbrev shortens a long text for a failure message.
func abbrev(s string) string {
	if len(s) <= 200 {
		return s
	}
	return s[:100] + "…" + s[len(s)-100:]
}

// expectUsable checks that the shell still runs commands, state intact.
func expectUsable(t *testing.T, b *bridge) {
	t.Helper()
	if r := b.send("--", "echo usable; sh -c 'exit 4'"); r.stdout != "usable\n" || r.code != 4 {
		t.Fatalf("the shell must be usable, got:\n%v", r)
	}
}

func TestANestedShellGetsCodeInItsOwnSyntax(t *testing.T) {
	// Code that only the named shell runs as intended: [[ ]] is no fish
	// syntax, and (...) as command substitution is no bash syntax.
	probe := map[string]struct{ code, want string }{
		"bash": {`[[ -n $BASH_VERSION ]] && echo "in bash"`, "in bash\n"},
		"fish": {`echo (string upper "in fish")`, "IN FISH\n"},
	}
	for _, c := range []struct{ outer, inner string }{{"fish", "bash"}, {"bash", "fish"}} {
		t.Run(c.inner+" inside "+c.outer, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, shellByName(t, c.outer))
			human := b.terms[0]
			human.typeKeys(shellByName(t, c.inner).path(t) + "\r")
			b.waitFor(c.inner+" in the foreground", func() bool { return b.foreground() == c.inner })
			p := probe[c.inner]
			if r := b.send("--", p.code); r.code != 0 || r.stdout != p.want {
				t.Fatalf("the inner %s must run the words, got:\n%v", c.inner, r)
			}
			human.typeKeys("exit\r")
			b.waitFor(c.outer+" back in the foreground", func() bool { return b.foreground() == c.outer })
			p = probe[c.outer]
			if r := b.send("--", p.code); r.code != 0 || r.stdout != p.want {
				t.Fatalf("back in %s, got:\n%v", c.outer, r)
			}
		})
	}
}

// foreground is the program whose process group owns the shared pane's
// terminal, read from /proc as ptysend reads it: tmux's
// pane_current_command can name the outer shell while the terminal still
// belongs to an inner one that is exiting.
func (b *bridge) foreground() string {
	pid, err := strconv.Atoi(b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{pane_pid}"))
	if err != nil {
		b.t.Fatal(err)
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	cmdline, _ := os.ReadFile("/proc/" + fields[5] + "/cmdline")
	argv0, _, _ := strings.Cut(string(cmdline), "\x00")
	return strings.TrimPrefix(filepath.Base(argv0), "-")
}

func TestAShellPtysendCannotDriveIsRefusedByName(t *testing.T) {
	t.Parallel()
	b := startBridge(t)
	// ptysend knows shells by their program name, so cat under the name
	// tcsh stands in for the real tcsh, which CI does not install.
	fake := filepath.Join(b.dir, "tcsh")
	must(t, os.Symlink("/bin/cat", fake))
	human := b.terms[0]
	human.typeKeys(fake + "\r")
	b.waitFor("tcsh in the foreground", func() bool { return b.foreground() == "tcsh" })
	r := b.send("--", "echo agent")
	wantErr := "ptysend: error: the shared terminal runs tcsh, a shell ptysend cannot drive\nhint: "
	if r.code != 125 || !strings.HasPrefix(r.stderr, wantErr) || !strings.Contains(r.stderr, "bash, zsh, fish and sh") {
		t.Fatalf("want exit 125 with %q and the supported shells, got:\n%v", wantErr, r)
	}
	if pane := b.paneText(); strings.Contains(pane, ".sh'") || strings.Contains(pane, "agent") {
		t.Fatalf("nothing may be typed into a shell ptysend cannot drive:\n%s", pane)
	}
	human.typeKeys("\x04") // end of input: "tcsh" exits
	b.waitFor("bash back in the foreground", func() bool { return b.foreground() == "bash" })
	if got := b.run("--", "echo agent"); got != "agent\n" {
		t.Fatalf("got %q", got)
	}
}

// rcCase is a human's shell configuration that prints or draws a lot
// around each command, none of which may reach the agent's output.
type rcCase struct {
	name, shell string
	rc          string // the shell's startup file
	// drawn is text the configuration puts in the pane before each
	// prompt: seeing it again after a call shows the configuration is
	// still in effect.
	drawn string
	extra []option
}

func TestTheHumansShellConfigurationStaysOutOfTheOutput(t *testing.T) {
	cases := []rcCase{
		{name: "bash multi-line PS1 and a PROMPT_COMMAND that prints", shell: "bash",
			rc: `PS1='\u@\h \w\n[ps1-line-two] \$ '` + "\n" +
				`PROMPT_COMMAND='echo prompt-command-ran'` + "\n",
			drawn: "prompt-command-ran"},
		{name: "bash vi mode", shell: "bash",
			rc:    "set -o vi\nPS1='[vi-prompt] \\$ '\n",
			drawn: "[vi-prompt]"},
		{name: "zsh precmd that prints, RPROMPT and a multi-line PROMPT", shell: "zsh",
			rc: "precmd() { echo precmd-ran }\n" +
				"PROMPT=$'%n@%m %~\\n[prompt-line-two] %# '\n" +
				"RPROMPT='[right-prompt]'\n",
			drawn: "precmd-ran"},
		// noclobber: the wrapper writes to a file ptysend made beforehand.
		{name: "bash with noclobber", shell: "bash", rc: "set -o noclobber\nPS1='[noclobber] $ '\n", drawn: "[noclobber]"},
		{name: "zsh with noclobber and other options", shell: "zsh",
			rc:    "setopt no_clobber rc_expand_param no_unset ksh_arrays sh_word_split\nPROMPT='[zsh-options] %# '\n",
			drawn: "[zsh-options]"},
		{name: "dash with noclobber", shell: "dash", rc: "set -C\nPS1='[dash-C] $ '\n", drawn: "[dash-C]"},
		{name: "fish multi-line prompt, right prompt, autosuggestions from history", shell: "fish",
			rc: "function fish_prompt\n    echo fish-prompt-line-one\n    echo fish-prompt-line-two\n    echo -n '> '\nend\n" +
				"function fish_right_prompt\n    echo -n '[right-prompt]'\nend\n",
			drawn: "fish-prompt-line-two",
			// History entries that fish suggests while the sourcing line
			// is typed: Enter must run the typed line, not a suggestion.
			extra: []option{func(b *bridge) {
				withHomeFile(".local/share/fish/fish_history", fmt.Sprintf(
					"- cmd:  source '%[1]s/0123456789abcdef.sh'; echo hijacked\n  when: 1700000000\n"+
						"- cmd: source '%[1]s/0123456789abcdef.sh'; echo hijacked\n  when: 1700000001\n"+
						"- cmd: echo hijacked\n  when: 1700000002\n", b.runtimeDir()))(b)
			}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sh := shellByName(t, c.shell)
			b := startShellBridge(t, sh, append([]option{withRC(sh, c.rc)}, c.extra...)...)
			checkUnaffectedCalls(t, b)
			r := b.send("--timeout", "1", "--", "echo started; sleep 300")
			if r.code != 124 || r.stdout != "started\n" {
				t.Fatalf("want exit 124 and only the output so far:\n%v", r)
			}
			expectUsable(t, b)
			// Each call's line takes the place of the prompt row it was typed at; after the last
			// call's output (expectUsable's), the human's prompt is drawn again.
			b.waitFor("the human's prompt configuration to be drawn again", func() bool {
				pane := b.paneText()
				return strings.Contains(pane[max(0, strings.LastIndex(pane, "usable\n")):], c.drawn)
			})
		})
	}
}

// withRC gives the human's shell the startup file rc. tmux starts login
// shells, and a login bash reads ~/.profile, which sources ~/.bashrc as
// Debian's default one does.
func withRC(sh testShell, rc string) option {
	return func(b *bridge) {
		withHomeFile(sh.rcFile, rc)(b)
		if sh.name == "bash" {
			withHomeFile(".profile", ". \"$HOME/.bashrc\"\n")(b)
		}
	}
}

// checkUnaffectedCalls runs calls whose output must be exact whatever the
// prompt, precmd or line editor of the human prints around them.
func checkUnaffectedCalls(t *testing.T, b *bridge) {
	t.Helper()
	for _, c := range []struct {
		cmd, stdout, stderr string
		code                int
	}{
		{"echo out; echo err >&2; sh -c 'exit 3'", "out\n", "err\n", 3},
		{"printf 'no newline'", "no newline", "", 0},
		{"echo one\necho two", "one\ntwo\n", "", 0},
		{"true", "", "", 0},
	} {
		r := b.send("--", c.cmd)
		if r.stdout != c.stdout || r.stderr != c.stderr || r.code != c.code {
			t.Fatalf("ptysend -- %q: want stdout %q, stderr %q, exit %d; got:\n%v\npane:\n%s",
				c.cmd, c.stdout, c.stderr, c.code, r, b.paneText())
		}
	}
}

func TestFishGetsItsJobControlSettingBack(t *testing.T) {
	t.Parallel()
	b := startShellBridge(t, shellByName(t, "fish"))
	b.run("--", "echo done")
	b.send("--timeout", "1", "--", "sleep 300")
	// The wrapper runs the command under full job control; the human's
	// own commands must run under fish's default again.
	b.terms[0].typeKeys("if status is-interactive-job-control; echo job-control-is-(echo interactive); end\r")
	b.waitFor("fish to report interactive job control", func() bool {
		return strings.Contains(b.paneText(), "\njob-control-is-interactive")
	})
	// Only this call's own restoring function may exist.
	if got := b.run("--", "functions --all | string match '__ptybridge_restore*' | count"); got != "1\n" {
		t.Fatalf("the helper functions of earlier calls must be gone, found %q", got)
	}
}

func TestHelpAndREADMEGiveAnExampleThatWorksInEachShell(t *testing.T) {
	help := newWorld(t).send("--help").stdout
	readme, err := os.ReadFile("../../README.md")
	must(t, err)
	examples := shellExamples(help)
	for _, sh := range shells {
		name := sh.name
		if name == "dash" {
			name = "sh"
		}
		code, ok := examples[name]
		if !ok {
			t.Errorf("ptysend --help has no example for %s:\n%s", name, help)
			continue
		}
		if !strings.Contains(string(readme), code) {
			t.Errorf("README.md lacks the %s example of --help: %s", name, code)
		}
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			src := filepath.Join(b.dir, "src")
			must(t, os.Mkdir(src, 0o700))
			must(t, os.WriteFile(filepath.Join(src, "a.go"), []byte("package a\n\n"), 0o600))
			must(t, os.WriteFile(filepath.Join(src, "b.go"), []byte("package a\n"), 0o600))
			b.run("--", "cd "+src)
			if got := b.run("--", code); got != "2 a.go\n1 b.go\n" {
				t.Fatalf("the example %q printed %q", code, got)
			}
			if got := b.run("--", `sh -c 'echo "$MODE"'`); got != "dev\n" {
				t.Fatalf("the example must export MODE=dev, got %q", got)
			}
		})
	}
}

// shellExamples finds the lines "ptysend -- 'CODE'   # shell, shell" of
// the help text: CODE by shell name.
func shellExamples(help string) map[string]string {
	examples := map[string]string{}
	for _, line := range strings.Split(help, "\n") {
		call, names, ok := strings.Cut(strings.TrimSpace(line), "#")
		code, quoted := strings.CutPrefix(strings.TrimSpace(call), "ptysend -- '")
		if !ok || !quoted {
			continue
		}
		for _, name := range strings.Split(names, ",") {
			examples[strings.TrimSpace(name)] = strings.TrimSuffix(code, "'")
		}
	}
	return examples
}

func TestFishPromptsLookTheSameWithTheHooks(t *testing.T) {
	for _, c := range []struct {
		name, rc    string
		promptLines int
	}{
		{"the default prompt", "", 1},
		{"a multi-line prompt and a right prompt", fishPrompts, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sh := shellByName(t, "fish")
			b := startShellBridge(t, sh, withRC(sh, c.rc))
			human := b.terms[0]
			// The prompt after a failing command of the human's, as the
			// screen shows it: the status must reach the human's prompts.
			promptAfterFailure := func(n int) string {
				mark := fmt.Sprint("marker-", n)
				human.typeKeys("echo " + mark + "; false\r")
				var prompt string
				b.waitFor("the prompt after "+mark, func() bool {
					lines := strings.Split(b.mustTmux("capture-pane", "-p", "-t", "="+b.name+":"), "\n")
					for i := len(lines) - 1; i >= 0; i-- {
						if lines[i] == mark {
							after := strings.TrimRight(strings.Join(lines[i+1:], "\n"), "\n ")
							prompt = after
							return after != "" && strings.Count(after, "\n") == c.promptLines-1 && strings.HasSuffix(after, "]") == (c.rc != "")
						}
					}
					return false
				})
				return prompt
			}
			before := promptAfterFailure(1)
			checkUnaffectedCalls(t, b) // the first installs the hooks
			if after := promptAfterFailure(2); after != before {
				t.Fatalf("the human's prompt must look as before the hooks:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			if c.rc != "" && !strings.Contains(before, "[1]> ") {
				t.Fatalf("the prompt must show the human's last status:\n%s", before)
			}
			// The human redefines the prompts (re-reads config.fish): the
			// hooks follow, and a half-typed line is still seen.
			human.typeKeys("source ~/.config/fish/config.fish; echo config-read\r")
			b.waitFor("the configuration to be read again", func() bool { return strings.Contains(b.paneText(), "\nconfig-read\n") })
			checkUnaffectedCalls(t, b)
			human.typeKeys("echo half")
			b.waitFor("the human's keys to show", func() bool { return strings.Contains(b.paneText(), "echo half") })
			if r := b.send("--", "echo agent"); r.code != 75 || !strings.Contains(r.stderr, "not pressed Enter") {
				t.Fatalf("want a refusal of the half-typed line:\n%v", r)
			}
		})
	}
}
