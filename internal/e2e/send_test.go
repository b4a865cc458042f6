package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestSendReturnsStdoutStderrAndStatusApart(t *testing.T) {
	b := startBridge(t)
	r := b.send("--", "echo out; echo err >&2; (exit 3)")
	if r.stdout != "out\n" || r.stderr != "err\n" || r.code != 3 {
		t.Fatalf("want stdout \"out\\n\", stderr \"err\\n\", exit 3; got:\n%v", r)
	}
}

func TestSendJoinsWordsLikeSSH(t *testing.T) {
	b := startBridge(t)
	if got := b.run("--", "echo", "a", "b"); got != "a b\n" {
		t.Fatalf("got %q", got)
	}
	// Without "--" the first word ends flag parsing too.
	if got := b.run("printf", "'%s-%s\\n'", "x", "y"); got != "x-y\n" {
		t.Fatalf("got %q", got)
	}
}

func TestShellStatePersistsBetweenCalls(t *testing.T) {
	b := startBridge(t)
	b.run("--", "cd /usr/share && export PTB_VAR=kept && greet() { echo hello \"$1\"; }")
	got := b.run("--", `pwd; echo "$PTB_VAR"; greet agent`)
	if got != "/usr/share\nkept\nhello agent\n" {
		t.Fatalf("got %q", got)
	}
}

func TestStdinIsForwardedToTheCommand(t *testing.T) {
	b := startBridge(t)
	r := b.sendWith(strings.NewReader("line one\nline\ttwo\n"), "--", "cat; echo end")
	if r.code != 0 || r.stdout != "line one\nline\ttwo\nend\n" {
		t.Fatalf("got:\n%v", r)
	}
	// A command that does not read its stdin still finishes.
	big := strings.NewReader(strings.Repeat("x", 1<<20))
	if r := b.sendWith(big, "--", "echo ignored"); r.stdout != "ignored\n" {
		t.Fatalf("got:\n%v", r)
	}
}

func TestOutputArrivesExactly(t *testing.T) {
	b := startBridge(t)
	long := strings.Repeat("0123456789", 1000)
	cases := []struct {
		name, cmd, want string
	}{
		{"no trailing newline", `printf 'no newline'`, "no newline"},
		{"empty", `true`, ""},
		{"tabs", `printf 'a\tb\t\tc\n'`, "a\tb\t\tc\n"},
		{"utf-8", `printf '漢字 かな 한글 😀🎉 é\n'`, "漢字 かな 한글 😀🎉 é\n"},
		{"carriage returns", `printf '10%%\r50%%\r100%%\n'`, "10%\r50%\r100%\n"},
		{"crlf written by the command", `printf 'dos\r\n'`, "dos\r\n"},
		{"10,000-character line", `printf '%s\n' ` + long, long + "\n"},
		{"blank lines", `printf '\n\n\nx\n\n'`, "\n\n\nx\n\n"},
		{"escape sequences", `printf '\033[1mbold\033[0m\n'`, "\x1b[1mbold\x1b[0m\n"},
		{"a line that looks like a peer's marker", `echo ___PTYSEND_END_1234 0___`, "___PTYSEND_END_1234 0___\n"},
		{"a marker of another call", `printf '\033]6973;ptybridge;E;0123456789abcdef;0\007after\n'`,
			"\x1b]6973;ptybridge;E;0123456789abcdef;0\aafter\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := b.run("--", c.cmd); got != c.want {
				t.Fatalf("want %q\n got %q", c.want, got)
			}
		})
	}
}

func TestLargeOutputArrivesWholeWhateverTheScrollback(t *testing.T) {
	b := startBridge(t)
	// The stream lags behind the shell, which is back at its prompt (a
	// line editor waiting for keys) long before the output has passed
	// through tmux: that is no question to the human.
	r := b.send("--", "seq 1 100000")
	var want strings.Builder
	for i := 1; i <= 100000; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	if got := r.stdout; r.code != 0 || got != want.String() || r.stderr != "" {
		t.Fatalf("got exit %d, %d bytes (want %d), head %q tail %q, stderr %q", r.code, len(got), want.Len(), head(got), tail(got), r.stderr)
	}
}

func head(s string) string { return s[:min(len(s), 60)] }
func tail(s string) string { return s[max(0, len(s)-60):] }

func TestCommandTextArrivesIntact(t *testing.T) {
	b := startBridge(t)
	long := strings.Repeat("abcdefghij", 550) // 5,500 characters
	cases := []struct {
		name, cmd, want string
	}{
		{"5,000+ characters", "echo " + long, long + "\n"},
		{"several lines", "echo one\necho two\necho three", "one\ntwo\nthree\n"},
		{"quotes", `echo "double" 'single' "it's"`, "double single it's\n"},
		{"dollar and backslashes", `x=5; echo "\$x=$x" '$x' \\ 'a\b'`, "$x=5 $x \\ a\\b\n"},
		{"a literal TAB", "printf '%s\\n' 'a\tb'", "a\tb\n"},
		{"a trailing semicolon", "echo semi;", "semi\n"},
		{"a leading dash word", "-n 2>/dev/null; echo ran", "ran\n"},
		{"a here-document", "cat <<'EOF'\nhere $doc\nEOF", "here $doc\n"},
		{"a syntax error", "echo (", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := b.send("--", c.cmd)
			if r.stdout != c.want {
				t.Fatalf("want stdout %q, got:\n%v", c.want, r)
			}
		})
	}
	if r := b.send("--", "echo ("); r.code == 0 || r.stderr == "" {
		t.Fatalf("a syntax error must fail with a message on stderr, got:\n%v", r)
	}
}

func TestConcurrentCallsAreServedOneAtATime(t *testing.T) {
	b := startBridge(t)
	const callers = 6
	var wg sync.WaitGroup
	results := make([]result, callers)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = b.send("--", fmt.Sprintf("for n in 1 2 3 4 5 6 7 8 9 10; do echo caller-%d-$n; sleep 0.01; done", i))
		}()
	}
	wg.Wait()
	for i, r := range results {
		var want strings.Builder
		for n := 1; n <= 10; n++ {
			fmt.Fprintf(&want, "caller-%d-%d\n", i, n)
		}
		if r.code != 0 || r.stdout != want.String() {
			t.Errorf("caller %d got:\n%v", i, r)
		}
	}
}

func TestNoBridgePrintsTheAgentMessage(t *testing.T) {
	b := newWorld(t)
	r := b.send("--", "echo hi")
	want := "Error: No PTY bridge session is running.\n" +
		"\n" +
		"You have used `ptysend`, but it currently has nowhere to send to.\n" +
		"\n" +
		"The user needs to start the interactive backing terminal using `ptybridge`.\n" +
		"Do not try this yourself - instead, ask the user to do it for you.\n" +
		"\n" +
		"This is necessary for *interactive* commands - for example, sudo (requiring\n" +
		"a password prompt). If you can avoid interactive tools, then prefer that.\n" +
		"Otherwise, please ask the user now.\n"
	if r.code != 125 || r.stdout != "" || r.stderr != want {
		t.Fatalf("got:\n%v", r)
	}
}

func TestUsageErrorsExit125(t *testing.T) {
	b := newWorld(t)
	for _, args := range [][]string{
		{},
		{"--"},
		{"--no-such-flag", "--", "true"},
		{"--timeout", "soon", "--", "true"},
		{"--max-time", "-3", "--", "true"},
		{"--session", "a:b", "--", "true"},
	} {
		r := b.send(args...)
		if r.code != 125 || !strings.HasPrefix(r.stderr, "ptysend: error: ") || !strings.Contains(r.stderr, "\nhint: ") {
			t.Errorf("ptysend %q: want exit 125 with an error and a hint, got:\n%v", args, r)
		}
	}
}

func TestHelpExplainsWordsAndExitCodes(t *testing.T) {
	b := newWorld(t)
	r := b.send("--help")
	for _, want := range []string{"--timeout", "--max-time", "--session", "124", "125", "WORDS"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, r.stdout)
		}
	}
	expectCode(t, r, 0)
}

func TestSessionFlagAndVariableChooseTheBridge(t *testing.T) {
	b := newWorld(t, withEnv("PTYBRIDGE_SESSION", "other"))
	b.name = "other"
	b.openTerminal()
	b.waitReady()
	if got := b.run("--", "echo via-env"); got != "via-env\n" {
		t.Fatalf("got %q", got)
	}
	if r := b.send("--session", "missing", "--", "true"); r.code != 125 || !strings.Contains(r.stderr, "No PTY bridge") {
		t.Fatalf("a session that does not exist must read as no bridge, got:\n%v", r)
	}
}

func TestPerCommandFilesAreRemoved(t *testing.T) {
	b := startBridge(t)
	b.sendWith(strings.NewReader("in"), "--", "cat; echo err >&2")
	entries, err := os.ReadDir(b.runtimeDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		// The relay's socket, and which shell has the hooks: the session's.
		if ext := filepath.Ext(e.Name()); ext != ".sock" && ext != ".hooked" {
			t.Errorf("left behind in the runtime directory: %s", e.Name())
		}
	}
}

func TestTypedLineStaysOutOfHistoryAndShowsNoMarkers(t *testing.T) {
	b := startBridge(t, withEnv("HISTCONTROL", "ignorespace"))
	b.run("--", "echo visible-output")
	pane := b.paneText()
	if !strings.Contains(pane, "visible-output") {
		t.Fatalf("the human must see the output; pane:\n%s", pane)
	}
	if strings.Contains(pane, "6973") || strings.Contains(pane, "ptybridge;") {
		t.Fatalf("markers must be invisible in the pane:\n%s", pane)
	}
	if hist := b.run("--", "history"); strings.Contains(hist, ".sh'") {
		t.Fatalf("the sourcing line reached the shell history:\n%s", hist)
	}
}
