package e2e

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
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

func TestRawOutputArrivesExactly(t *testing.T) {
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
			if got := b.run("--raw", "--", c.cmd); got != c.want {
				t.Fatalf("want %q\n got %q", c.want, got)
			}
		})
	}
}

func TestOutputIsTheTextAPipeWouldCarry(t *testing.T) {
	b := startBridge(t)
	cases := []struct {
		name, cmd, want string
	}{
		{"plain text untouched", `printf 'a\tb  \n漢字\nno newline'`, "a\tb  \n漢字\nno newline"},
		{"colours of ls --color", `mkdir -p d && touch d/f && ls --color=always d; rm -r d`, "f\n"},
		{"sgr around words", `printf '\033[01;34mdir\033[0m and \033[1mbold\033[0m\n'`, "dir and bold\n"},
		{"a progress bar redrawn with \\r", `printf '10%%\r50%%\r100%%\n'`, "100%\n"},
		{"a redraw that erases the line", `printf 'working...\r\033[Kdone\n'`, "done\n"},
		{"a shorter redraw shows what is left", `printf 'abc\rx\n'`, "xbc\n"},
		{"crlf written by the command", `printf 'dos\r\n'`, "dos\n"},
		{"a second terminal's line endings (script, like sudo's use_pty)", `script -qec 'printf "one\ntwo\n"' /dev/null`, "one\ntwo\n"},
		{"an OSC title and a hyperlink", `printf '\033]0;title\007\033]8;;http://x\033\\link\033]8;;\033\\\n'`, "link\n"},
		{"a charset switch", `printf '\033(0qqq\033(B line\n'`, "qqq line\n"},
		{"a marker of another call", `printf '\033]6973;ptybridge;E;0123456789abcdef;0\007after\n'`, "after\n"},
		{"backspaces", `printf 'ab\bc\n'`, "ac\n"},
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

func TestACallThatWaitsBehindAnotherSaysWhatHoldsTheTerminal(t *testing.T) {
	b := startBridge(t)
	// The first call holds the terminal until its stdin ends.
	in, feed := io.Pipe()
	first := b.ptysend(in, "--", "cat >/dev/null; echo first")
	var firstOut, firstErr lockedBuffer
	first.Stdout, first.Stderr = &firstOut, &firstErr
	must(t, first.Start())
	b.waitFor("the first call's cat to run", func() bool { return b.paneCommand() == "cat" })

	second := b.ptysend(nil, "--", "echo second")
	var secondOut, secondErr lockedBuffer
	second.Stdout, second.Stderr = &secondOut, &secondErr
	must(t, second.Start())
	b.waitFor("the second call to say that it waits", func() bool { return strings.Contains(secondErr.String(), "\n") })
	notice := regexp.MustCompile(`^ptysend: waiting: another ptysend call, "cat >/dev/null; echo first", holds the shared terminal ` +
		`since \d\d:\d\d:\d\d \(\d+s ago\); this call runs when it is done\n$`)
	if !notice.MatchString(secondErr.String()) {
		t.Fatalf("the waiting call must say behind what, since when; got %q", secondErr.String())
	}
	// A call whose --max-time passes in the queue says behind what.
	r := b.send("--max-time", "0.5", "--", "echo never")
	expectCode(t, r, 124)
	expectStderr(t, r, `--max-time 500ms passed while another ptysend call, "cat >/dev/null; echo first", was using the shared terminal; nothing was run`)

	feed.Close()
	must(t, first.Wait())
	must(t, second.Wait())
	if firstOut.String() != "first\n" || firstErr.String() != "" {
		t.Fatalf("the first call waited for nobody: stdout %q, stderr %q", firstOut.String(), firstErr.String())
	}
	if secondOut.String() != "second\n" || !notice.MatchString(secondErr.String()) {
		t.Fatalf("the second call: stdout %q, stderr %q", secondOut.String(), secondErr.String())
	}
	// A call that waits for nobody says nothing, even when its relay had
	// to be started anew (the greeting is slow then).
	if r = b.send("--", "echo alone"); r.stderr != "" {
		t.Fatalf("got:\n%v", r)
	}
	must(t, syscall.Kill(relayPID(t, b), syscall.SIGKILL))
	if r = b.send("--", "echo repaired"); r.stdout != "repaired\n" || r.stderr != "" {
		t.Fatalf("got:\n%v", r)
	}
}

// A call stopped while it waits behind another types nothing (it asked for its turn first thing,
// before its signals were caught), and the call ahead runs on undisturbed.
func TestACallStoppedWhileItWaitsForItsTurnTypesNothing(t *testing.T) {
	b := startBridge(t)
	in, feed := io.Pipe()
	first := b.ptysend(in, "--", "cat >/dev/null; echo first")
	var firstOut lockedBuffer
	first.Stdout = &firstOut
	must(t, first.Start())
	b.waitFor("the first call's cat to run", func() bool { return b.paneCommand() == "cat" })

	second := b.ptysend(nil, "--", "echo never-typed")
	var secondErr lockedBuffer
	second.Stderr = &secondErr
	must(t, second.Start())
	b.waitFor("the second call to say that it waits", func() bool { return strings.Contains(secondErr.String(), "ptysend: waiting:") })
	must(t, second.Process.Signal(syscall.SIGINT))
	second.Wait()
	if code := second.ProcessState.ExitCode(); code != 130 ||
		!strings.Contains(secondErr.String(), "ptysend: error: ") ||
		!strings.Contains(secondErr.String(), " before its turn at the shared terminal; nothing was typed\nhint: ") {
		t.Fatalf("want 130 and nothing typed, got %d and %q", code, secondErr.String())
	}

	feed.Close()
	must(t, first.Wait())
	if firstOut.String() != "first\n" {
		t.Fatalf("the call ahead: %q", firstOut.String())
	}
	if pane, _ := b.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "="+b.name+":"); strings.Contains(pane, "never-typed") {
		t.Fatalf("the stopped call was typed:\n%s", pane)
	}
	if got := b.run("--", "echo next"); got != "next\n" {
		t.Fatalf("the next call: %q", got)
	}
}

func TestNoBridgePrintsTheAgentMessage(t *testing.T) {
	b := newWorld(t)
	r := b.send("--", "echo hi")
	if r.code != 125 || r.stdout != "" || r.stderr != noBridgeMessage {
		t.Fatalf("got:\n%v", r)
	}
}

// noBridgeMessage is what ptysend says, word for word, when no bridge runs.
const noBridgeMessage = "Error: No PTY bridge session is running.\n" +
	"\n" +
	"You have used `ptysend`, but it currently has nowhere to send to.\n" +
	"\n" +
	"The user needs to start the interactive backing terminal using `ptybridge`.\n" +
	"Do not try this yourself - instead, ask the user to do it for you.\n" +
	"\n" +
	"This is necessary for *interactive* commands - for example, sudo (requiring\n" +
	"a password prompt). If you can avoid interactive tools, then prefer that.\n" +
	"Otherwise, please ask the user now.\n"

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
	for _, want := range []string{"--timeout", "--max-time", "--session", "75", "77", "124", "125", "WORDS",
		"--screen", "--json", "--notify", "--wait-free", "ptybridge --confirm"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help lacks %q:\n%s", want, r.stdout)
		}
	}
	expectCode(t, r, 0)
}

func TestHelpShowsTheTimeoutDefaults(t *testing.T) {
	b := newWorld(t)
	help := b.send("--help").stdout
	for _, c := range []struct{ flag, wants string }{
		{"--timeout", "default 10s|stderr counts"},
		{"--max-time", "default 120s"},
	} {
		entry := flagHelp(help, c.flag)
		for _, want := range strings.Split(c.wants, "|") {
			if !strings.Contains(entry, want) {
				t.Errorf("the help of %s lacks %q: %q", c.flag, want, entry)
			}
		}
	}
}

// flagHelp is the entry of a flag in --help, its lines joined.
func flagHelp(help, flag string) string {
	var entry []string
	for _, line := range strings.Split(help, "\n") {
		field := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(field, flag+"="):
			entry = append(entry, field)
		case len(entry) > 0 && field != "" && !strings.HasPrefix(field, "-"):
			entry = append(entry, field)
		case len(entry) > 0:
			return strings.Join(strings.Fields(strings.Join(entry, " ")), " ")
		}
	}
	return strings.Join(entry, " ")
}

func TestSessionFlagAndVariableChooseTheBridge(t *testing.T) {
	b := newWorld(t, withEnv("PTYBRIDGE_SESSION", "other"))
	b.name = "other"
	b.openTerminal()
	b.waitReady()
	if got := b.run("--", "echo via-env"); got != "via-env\n" {
		t.Fatalf("got %q", got)
	}
}

func TestAMissingSessionIsNamedBesideTheBridgesThatRun(t *testing.T) {
	b := startBridge(t)
	r := b.send("--session", "missing", "--", "true")
	expectCode(t, r, 125)
	if strings.Contains(r.stderr, "No PTY bridge session is running") {
		t.Fatalf("a bridge runs: the message must not say none does:\n%v", r)
	}
	expectStderr(t, r,
		`ptysend: error: no bridge session named "missing" is running; the bridge session that runs is "`+b.name+`"`,
		"hint: to send there, use --session "+b.name+`; to have a bridge under the name "missing", ask the user to open it with: ptybridge --session missing`)

	// Two bridges (the second opened as the hint says), and a tmux session
	// of the user's that is no bridge.
	b.openTerminal("--session", "second")
	b.waitFor("the second bridge", func() bool { _, err := b.tmux("has-session", "-t", "=second"); return err == nil })
	b.mustTmux("new-session", "-d", "-s", "not-a-bridge")
	r = b.send("--session", "missing", "--", "true")
	expectCode(t, r, 125)
	expectStderr(t, r, `the bridge sessions that run are "`+b.name+`", "second"`)
	if strings.Contains(r.stderr, "not-a-bridge") {
		t.Fatalf("only bridge sessions are named:\n%v", r)
	}
	if got := b.run("--session", "second", "--", "echo second"); got != "second\n" {
		t.Fatalf("got %q", got)
	}
}

// A name with characters a file name keeps apart (a space: the socket is "my%20bridge.sock")
// reaches its relay as it is: pipe-pane read that '%' as a date's (the month's name).
func TestABridgeNamedWithASpaceRuns(t *testing.T) {
	b := newWorld(t)
	b.openTerminal("--session", "my bridge; #1")
	b.waitFor("the bridge", func() bool { _, err := b.tmux("has-session", "-t", "=my bridge; #1"); return err == nil })
	if got := b.run("--session", "my bridge; #1", "--", "echo ran"); got != "ran\n" {
		t.Fatalf("got %q", got)
	}
}

func TestNoBridgeMessageStandsWhenOnlyOtherTmuxSessionsRun(t *testing.T) {
	b := newWorld(t)
	b.mustTmux("new-session", "-d", "-s", "not-a-bridge")
	r := b.send("--session", "missing", "--", "true")
	if r.code != 125 || r.stderr != noBridgeMessage {
		t.Fatalf("want the message for the agent, exactly, got:\n%v", r)
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
		// The relay's socket, its record of the pane, which shell has the
		// hooks and the prompt it showed when set up: the session's.
		if ext := filepath.Ext(e.Name()); ext != ".sock" && ext != ".hooked" && ext != ".pane" && ext != ".prompt" {
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
