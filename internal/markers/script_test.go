package markers_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptybridge/ptybridge/internal/markers"
)

func TestShellFor(t *testing.T) {
	tests := []struct {
		program string
		want    markers.Shell
		ok      bool
	}{
		{"bash", markers.POSIX, true},
		{"-bash", markers.POSIX, true},
		{"/usr/bin/zsh", markers.Zsh, true},
		{"-zsh", markers.Zsh, true},
		{"dash", markers.POSIX, true},
		{"sh", markers.POSIX, true},
		{"-sh", markers.POSIX, true},
		{"ksh", markers.POSIX, true},
		{"mksh", markers.POSIX, true},
		{"busybox", markers.POSIX, true},
		{"fish", markers.Fish, true},
		{"-fish", markers.Fish, true},
		{"/usr/local/bin/fish", markers.Fish, true},
		{"python3", 0, false},
		{"vim", 0, false},
		{"bash5", 0, false},
		{"fish-shell", 0, false},
		{"-", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.program), func(t *testing.T) {
			got, ok := markers.ShellFor(tt.program)
			if ok != tt.ok || (ok && got != tt.want) {
				t.Errorf("ShellFor(%q) = %v, %v; want %v, %v", tt.program, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestSourceLine(t *testing.T) {
	tests := []struct {
		name  string
		shell markers.Shell
		path  string
		want  string
	}{
		{"POSIX, plain path", markers.POSIX, "/run/x.sh", ` . '/run/x.sh'`},
		{"POSIX, space and single quote", markers.POSIX, "/tmp/it's a dir/x.sh", ` . '/tmp/it'\''s a dir/x.sh'`},
		{"fish, plain path", markers.Fish, "/run/x.sh", ` source '/run/x.sh'`},
		{"fish, space and single quote", markers.Fish, "/tmp/it's a dir/x.sh", ` source '/tmp/it\'s a dir/x.sh'`},
		{"fish, backslash", markers.Fish, `/tmp/back\slash/x.sh`, ` source '/tmp/back\\slash/x.sh'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := markers.SourceLine(tt.shell, tt.path)
			if got != tt.want {
				t.Errorf("SourceLine(%v, %q) = %q, want %q", tt.shell, tt.path, got, tt.want)
			}
			// The leading space keeps the line out of the shell's history.
			if !strings.HasPrefix(got, " ") {
				t.Errorf("SourceLine(%v, %q) = %q: want a leading space", tt.shell, tt.path, got)
			}
		})
	}
}

// The line a shell is typed really sources the file it names, whatever
// is in the path.
func TestSourceLineSourcesAnAwkwardPath(t *testing.T) {
	for _, family := range []markers.Shell{markers.POSIX, markers.Fish} {
		forEachShell(t, family, func(t *testing.T, sh shellUnderTest) {
			sb := newSandbox(t)
			dir := filepath.Join(sb.dir, `back\slash "and" $HOME`)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "my script's.sh")
			if err := os.WriteFile(path, []byte("printf 'sourced\\n'\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			sb.prelude = markers.SourceLine(sh.family, path)
			if got := sb.source(t, sh, ""); got != "sourced\n" {
				t.Errorf("%s -c %q printed %q, want %q", sh.name, sb.prelude, got, "sourced\n")
			}
		})
	}
}

func TestQuotePOSIXRoundTrips(t *testing.T) {
	words := []string{
		"", "plain", "two words", "it's", "''", `"double"`, `$HOME ${HOME} $(id) ` + "`id`",
		`back\slash\\ \'`, "tab\there", "new\nline", "trailing newline\n", "-n", "--", "*?[a]{b,c}~",
		"!#&|;<>()", "日本語 🎉", "\x1b]6973;ptybridge;E;0123456789abcdef;0\a",
	}
	forEachShell(t, markers.POSIX, func(t *testing.T, sh shellUnderTest) {
		sb := newSandbox(t)
		for _, w := range words {
			sb.prelude = "printf '%s' " + markers.QuotePOSIX(w)
			if got := sb.source(t, sh, ""); got != w {
				t.Errorf("printf '%%s' %s printed %q, want %q", markers.QuotePOSIX(w), got, w)
			}
		}
	})
}

// The generated text itself, independent of any shell being installed.
func TestScriptText(t *testing.T) {
	const command = `printf '%s\n' "it's" \ok`
	job := markers.Job{ID: ourID, Command: command, StderrPath: "/tmp/err path"}
	withStdin := job
	withStdin.StdinPath = "/tmp/in path"
	withAck := withStdin
	withAck.AckPath = "/tmp/ack path"
	tests := []struct {
		name       string
		shell      markers.Shell
		job        markers.Job
		contains   []string
		notContain []string
	}{
		{
			name:     "POSIX quotes the command as one word and redirects stderr",
			shell:    markers.POSIX,
			job:      job,
			contains: []string{`eval ' printf '\''%s\n'\'' "it'\''s" \ok' 2>|'/tmp/err path'`, `"$__ptybridge_status"`},
			// Without StdinPath the command reads the terminal.
			notContain: []string{" <'"},
		},
		{
			name:     "POSIX redirects stdin when StdinPath is set",
			shell:    markers.POSIX,
			job:      withStdin,
			contains: []string{`eval ' printf '\''%s\n'\'' "it'\''s" \ok' 2>|'/tmp/err path' <'/tmp/in path'`},
		},
		{
			name:  "POSIX with ptysend's fifos: stderr opened for reading too, the token and the wait for ptysend",
			shell: markers.POSIX,
			job:   withAck,
			contains: []string{`eval ' printf '\''%s\n'\'' "it'\''s" \ok' 2<>'/tmp/err path' 9<&- <'/tmp/in path'`,
				`} 9<'/tmp/ack path'`, `;D;%s\007' 0123456789abcdef; } 1<>'/tmp/err path'`, `read -r __ptybridge_ack <&9 || :`},
			notContain: []string{"2>|"},
		},
		{
			name:       "fish with ptysend's fifos: sh writes the token and waits for ptysend",
			shell:      markers.Fish,
			job:        withAck,
			contains:   []string{`command /bin/sh -c `, ` sh 0123456789abcdef '/tmp/err path' '/tmp/ack path'`},
			notContain: []string{"'/tmp/ack path' 9"},
		},
		{
			name:       "fish quotes the command as one word and redirects stderr",
			shell:      markers.Fish,
			job:        job,
			contains:   []string{`eval ' printf \'%s\\n\' "it\'s" \\ok' 2>'/tmp/err path'`, "$status"},
			notContain: []string{" <'"},
		},
		{
			name:     "fish redirects stdin when StdinPath is set",
			shell:    markers.Fish,
			job:      withStdin,
			contains: []string{`eval ' printf \'%s\\n\' "it\'s" \\ok' 2>'/tmp/err path' <'/tmp/in path'`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			script := markers.Script(tt.shell, tt.job)
			for _, want := range tt.contains {
				if !strings.Contains(script, want) {
					t.Errorf("script does not contain %q:\n%s", want, script)
				}
			}
			for _, unwanted := range tt.notContain {
				if strings.Contains(script, unwanted) {
					t.Errorf("script contains %q:\n%s", unwanted, script)
				}
			}
			// The markers are built by printf at run time: a shell echoing
			// or tracing the script never shows one.
			if strings.ContainsAny(script, "\x1b\a") || strings.Contains(script, markers.Start(ourID)) {
				t.Errorf("script holds marker bytes: %q", script)
			}
			if !strings.HasSuffix(script, "\n") {
				t.Errorf("script %q does not end with a newline", script)
			}
		})
	}
}

type scriptCase struct {
	name       string
	command    string
	stdinFile  *string // StdinPath's content; nil: no StdinPath
	want       string
	status     int
	wantStderr string
	anyStderr  bool // stderr is the shell's wording: only check it is there
}

func ptr(s string) *string { return &s }

func posixCases() []scriptCase {
	long := strings.Repeat("0123456789", 600)
	return []scriptCase{
		{name: "single quotes", command: `printf '%s\n' 'it'\''s' "it's" 'say "hi"'`, want: "it's\nit's\nsay \"hi\"\n"},
		{name: "double quotes", command: `printf '%s\n' "a \"quoted\" word" "back\\slash" "\$HOME"`, want: "a \"quoted\" word\nback\\slash\n$HOME\n"},
		{name: "$HOME expands when the command runs", command: `printf '%s|' "$HOME" '$HOME' "${HOME}x"`, want: testHome + "|$HOME|" + testHome + "x|"},
		{name: "backslashes", command: `printf '%s\n' 'a\b\\c' a\\b 'd\'`, want: "a\\b\\\\c\na\\b\nd\\\n"},
		{name: "tabs", command: "printf '%s\\n' 'a\tb'\tc", want: "a\tb\nc\n"},
		{name: "newlines between commands", command: "printf 'one\\n'\nprintf 'two\\n'\n", want: "one\ntwo\n"},
		{name: "newline inside quotes", command: "printf '%s\\n' 'multi\nline'", want: "multi\nline\n"},
		{name: "trailing semicolon", command: "printf 'hi\\n';", want: "hi\n"},
		{name: "leading blanks and a trailing comment", command: "  \tprintf 'x\\n' # a comment", want: "x\n"},
		{name: "a comment on the last line", command: "printf 'y\\n'\n# the end", want: "y\n"},
		{name: "a 6,000-character line", command: "printf '%s\\n' " + long, want: long + "\n"},
		{name: "command substitution runs when the command runs", command: "printf '%s %s\\n' \"$(echo sub)\" `echo tick`", want: "sub tick\n"},
		{name: "glob and operator characters in quotes stay literal", command: `printf '%s\n' '*' '?' '[a]' '!' '&&' '|' '<>' '{a,b}' '~'`, want: "*\n?\n[a]\n!\n&&\n|\n<>\n{a,b}\n~\n"},
		{name: "here-document", command: "cat <<'EOF'\n$HOME `x` \\ '\"\nEOF", want: "$HOME `x` \\ '\"\n"},
		{name: "CRs and no trailing newline", command: `printf 'a\r\nb\rc'`, want: "a\r\nb\rc"},
		{name: "UTF-8", command: `printf '%s\n' '日本語 🎉'`, want: "日本語 🎉\n"},
		{name: "a marker of another id is output", command: `printf '\033]6973;ptybridge;E;fedcba9876543210;0\007done\n'`, want: markers.End(otherID, 0) + "done\n"},
		{name: "no output", command: ":", want: ""},
		{name: "status of a subshell", command: "printf 'x\\n'; (exit 3)", want: "x\n", status: 3},
		{name: "status 255", command: "(exit 255)", status: 255},
		{name: "false", command: "false", status: 1},
		{name: "command not found", command: "ptybridge-no-such-command", status: 127, anyStderr: true},
		{name: "stderr goes to the stderr file", command: `printf 'out\n'; printf 'err\n' >&2; printf 'more' 1>&2`, want: "out\n", wantStderr: "err\nmore"},
		{name: "stdin comes from the stdin file", command: `read -r first; printf 'got %s\n' "$first"; cat`, stdinFile: ptr("line one\nline two\n"), want: "got line one\nline two\n"},
		{name: "an empty stdin file", command: `cat; printf 'eof\n'`, stdinFile: ptr(""), want: "eof\n"},
	}
}

func fishCases() []scriptCase {
	long := strings.Repeat("0123456789", 600)
	return []scriptCase{
		{name: "single quotes with escapes", command: `printf '%s\n' 'it\'s' "it's" 'back\\slash' 'say "hi"'`, want: "it's\nit's\nback\\slash\nsay \"hi\"\n"},
		{name: "$HOME expands when the command runs", command: `printf '%s|' "$HOME" '$HOME' "$HOME"x`, want: testHome + "|$HOME|" + testHome + "x|"},
		{name: "backslashes", command: `printf '%s\n' 'a\b\\\\c' a\\b "d\\"`, want: "a\\b\\\\c\na\\b\nd\\\n"},
		{name: "tabs", command: "printf '%s\\n' 'a\tb'\tc", want: "a\tb\nc\n"},
		{name: "newlines between commands", command: "printf 'one\\n'\nprintf 'two\\n'\n", want: "one\ntwo\n"},
		{name: "trailing semicolon", command: "printf 'hi\\n';", want: "hi\n"},
		{name: "a 6,000-character line", command: "printf '%s\\n' " + long, want: long + "\n"},
		{name: "command substitution runs when the command runs", command: `printf '%s\n' (echo sub)`, want: "sub\n"},
		{name: "UTF-8", command: `printf '%s\n' '日本語 🎉'`, want: "日本語 🎉\n"},
		{name: "status", command: "printf 'x\\n'; sh -c 'exit 3'", want: "x\n", status: 3},
		{name: "false", command: "false", status: 1},
		{name: "command not found", command: "ptybridge-no-such-command", status: 127},
		{name: "stderr goes to the stderr file", command: `printf 'out\n'; printf 'err\n' >&2`, want: "out\n", wantStderr: "err\n"},
		{name: "stdin comes from the stdin file", command: `read first; printf 'got %s\n' $first; cat`, stdinFile: ptr("line one\nline two\n"), want: "got line one\nline two\n"},
	}
}

// Each command runs as if typed at the prompt: output, status, stderr
// and stdin as the command itself has them.
func TestScriptRunsTheCommandAsTyped(t *testing.T) {
	for family, cases := range map[markers.Shell][]scriptCase{markers.POSIX: posixCases(), markers.Fish: fishCases()} {
		forEachShell(t, family, func(t *testing.T, sh shellUnderTest) {
			for _, tt := range cases {
				t.Run(tt.name, func(t *testing.T) {
					sb := newSandbox(t)
					job := sb.newJob(t, tt.command)
					if tt.stdinFile != nil {
						job.StdinPath = filepath.Join(sb.dir, "stdin file")
						if err := os.WriteFile(job.StdinPath, []byte(*tt.stdinFile), 0o600); err != nil {
							t.Fatal(err)
						}
					}
					got, stderr := sb.runJob(t, sh, "", job)
					check(t, fmt.Sprintf("command %q", tt.command), got, finished(tt.want, tt.status))
					switch {
					case tt.anyStderr && stderr == "":
						t.Errorf("command %q: nothing in the stderr file", tt.command)
					case !tt.anyStderr && stderr != tt.wantStderr:
						t.Errorf("command %q: stderr file holds %q, want %q", tt.command, stderr, tt.wantStderr)
					}
				})
			}
		})
	}
}

// Without StdinPath the command reads the shell's own standard input (in
// the pane: the terminal).
func TestScriptWithoutStdinPathReadsTheShellsStdin(t *testing.T) {
	commands := map[markers.Shell]string{
		markers.POSIX: `read -r line; printf 'typed: %s\n' "$line"`,
		markers.Fish:  `read line; printf 'typed: %s\n' $line`,
	}
	for family, command := range commands {
		forEachShell(t, family, func(t *testing.T, sh shellUnderTest) {
			sb := newSandbox(t)
			got, _ := sb.runJob(t, sh, "from the terminal\n", sb.newJob(t, command))
			check(t, "command "+command, got, finished("typed: from the terminal\n", 0))
		})
	}
}

// eval runs in the shell itself: a directory change, a variable and a
// function survive into the next call.
func TestScriptStatePersistsAcrossCalls(t *testing.T) {
	commands := map[markers.Shell][2]string{
		markers.POSIX: {
			"cd sub && x=42 && f() { printf 'fn\\n'; }",
			`printf '%s %s\n' "${PWD##*/}" "$x"; f`,
		},
		markers.Fish: {
			"cd sub; set x 42; function f; printf 'fn\\n'; end",
			`printf '%s %s\n' (basename $PWD) $x; f`,
		},
	}
	for family, cmds := range commands {
		forEachShell(t, family, func(t *testing.T, sh shellUnderTest) {
			sb := newSandbox(t)
			if err := os.Mkdir(filepath.Join(sb.dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			first, second := sb.newJob(t, cmds[0]), sb.newJob(t, cmds[1])
			stdout := sb.source(t, sh, "", first, second)
			check(t, "first call", extractFrom(t, first.ID, stdout), finished("", 0))
			check(t, "second call", extractFrom(t, second.ID, stdout), finished("sub 42\nfn\n", 0))
		})
	}
}

// A shell tracing its input (set -v, set -x) prints the script's lines
// and commands to the pane, but never a marker: the call still has
// exactly one START and one END.
func TestScriptUnderTracingShowsNoMarker(t *testing.T) {
	forEachShell(t, markers.POSIX, func(t *testing.T, sh shellUnderTest) {
		sb := newSandbox(t)
		sb.prelude, sb.mergeStderr = "set -xv", true
		job := sb.newJob(t, "printf 'traced\\n'; (exit 4)")
		stdout := sb.source(t, sh, "", job)
		if n := strings.Count(stdout, markers.Start(job.ID)); n != 1 {
			t.Errorf("START appears %d times in %q, want once", n, stdout)
		}
		if n := strings.Count(stdout, endPrefix(job.ID)); n != 1 {
			t.Errorf("the END prefix appears %d times in %q, want once", n, stdout)
		}
		got := extractFrom(t, job.ID, stdout)
		if !got.done || got.status != 4 || !strings.Contains(got.out, "traced\n") {
			t.Errorf("Done() = %v, Status() = %d, output %q; want true, 4, and output with %q", got.done, got.status, got.out, "traced\n")
		}
	})
}

// payloadPieces are the awkward things a command's text may hold.
var payloadPieces = []string{
	"'", `"`, "$HOME", "${HOME}", `\`, `\\`, `\'`, "\t", "\n", "\r", ";", " ", "-", "--", "`", "$(", ")", "%s", "%",
	"*", "?", "[a]", "!", "#", "&", "|", "<", ">", "{", "}", "~", "'\\''", "EOF", "日本", "🎉", "\a",
	markers.End(otherID, 0), "\x1b]6973;ptybridge;", "plain words", "x",
}

// payload is a random text of at least 5,000 bytes made of payloadPieces.
func payload(r *rand.Rand) string {
	var b strings.Builder
	for n := 5000 + r.IntN(3000); b.Len() < n; {
		b.WriteString(payloadPieces[r.IntN(len(payloadPieces))])
	}
	return b.String()
}

// fishWord quotes s for fish the way fish documents single quotes.
func fishWord(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
}

// Whatever the command's text holds, it reaches eval intact: a long
// random text of quotes, expansions, backslashes, TABs, newlines and
// control bytes is printed back byte for byte, by a command that starts
// with '-' and ends with ';', and the status comes through.
func TestScriptPassesAnyCommandTextThrough(t *testing.T) {
	for _, family := range []markers.Shell{markers.POSIX, markers.Fish} {
		forEachShell(t, family, func(t *testing.T, sh shellUnderTest) {
			for seed := range uint64(8) {
				r := rand.New(rand.NewPCG(seed, 6973))
				text, status := payload(r), r.IntN(256)
				var command, want string
				if family == markers.Fish {
					command = fmt.Sprintf("-printf '%%s' %s; sh -c 'exit %d';", fishWord(text), status)
					want = text
				} else {
					// A quoted here-document: the text is in the command as is.
					command = fmt.Sprintf("-cat <<'PTYBRIDGE_EOF'\n%s\nPTYBRIDGE_EOF\n(exit %d);", text, status)
					want = text + "\n"
				}
				sb := newSandbox(t)
				got, stderr := sb.runJob(t, sh, "", sb.newJob(t, command))
				check(t, fmt.Sprintf("seed %d", seed), got, finished(want, status))
				if stderr != "" {
					t.Errorf("seed %d: stderr %q, want none", seed, stderr)
				}
			}
		})
	}
}

func TestEchoRowsCountsTheRowsALineWrapsTo(t *testing.T) {
	for _, c := range []struct{ col, n, width, want int }{
		{0, 0, 80, 1},     // Enter alone
		{10, 69, 80, 1},   // ends one short of the margin
		{10, 70, 80, 1},   // ends at the margin: the pending wrap takes no row
		{10, 71, 80, 2},   // one past it
		{32, 208, 120, 2}, // far mode's loader after a 32-column prompt: 240 columns, two rows
		{32, 209, 120, 3},
		{5, 10, 0, 1}, // no width known
	} {
		if got := markers.EchoRows(c.col, c.n, c.width); got != c.want {
			t.Errorf("markers.EchoRows(%d, %d, %d) = %d, want %d", c.col, c.n, c.width, got, c.want)
		}
	}
}
