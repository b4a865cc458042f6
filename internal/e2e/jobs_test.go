package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Long-running jobs: each in a window of its own beside the shared
// terminal, where the human sees it (ptysend --job and friends).

// jobWindow is what tmux says about the window of job name: whether it
// exists and whether its process has ended (remain-on-exit keeps it).
func (b *bridge) jobWindow(name string) (exists, dead bool) {
	out := b.mustTmux("list-windows", "-t", "="+b.name+":", "-F", "#{window_name} #{pane_dead}")
	for _, line := range strings.Split(out, "\n") {
		if n, d, ok := strings.Cut(line, " "); ok && n == name {
			return true, d == "1"
		}
	}
	return false, false
}

// currentWindow is the index of the window the human looks at.
func (b *bridge) currentWindow() string {
	return b.mustTmux("display-message", "-p", "-t", "="+b.name+":", "#{window_index}")
}

// jobPane is the window of job name, as a tmux target.
func (b *bridge) jobPane(name string) string { return "=" + b.name + ":=" + name }

// freePort is a TCP port nothing listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func expectJobList(t *testing.T, b *bridge, name, state string) {
	t.Helper()
	out := b.run("--jobs")
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == name {
			if got := strings.Join(f[1:min(len(f), 1+len(strings.Fields(state)))], " "); got != state {
				t.Fatalf("--jobs says %q for %s, want %q:\n%s", got, name, state, out)
			}
			return
		}
	}
	t.Fatalf("--jobs does not list %s:\n%s", name, out)
}

func TestAnHTTPServerAsAJob(t *testing.T) {
	needProgram(t, "python3")
	b := startBridge(t)
	port := freePort(t)
	human := b.currentWindow()

	r := b.send("--job", "web", "--", fmt.Sprintf("python3 -m http.server %d --bind 127.0.0.1", port))
	expectCode(t, r, 0)
	if r.stdout != "" || !strings.Contains(r.stderr, `window "web"`) {
		t.Fatalf("want a note on stderr only:\n%v", r)
	}
	if b.currentWindow() != human {
		t.Fatal("starting a job changed the human's window")
	}
	if exists, dead := b.jobWindow("web"); !exists || dead {
		t.Fatalf("the job's window: exists %v, dead %v", exists, dead)
	}

	r = b.send("--job-wait", "web", "--until", "Serving HTTP")
	expectCode(t, r, 0)
	if !strings.HasPrefix(r.stdout, "Serving HTTP on 127.0.0.1 port "+strconv.Itoa(port)) || !strings.Contains(r.stderr, "next offset") {
		t.Fatalf("want the banner line:\n%v", r)
	}
	// The next offset follows the banner: what comes after it is not it.
	after := b.send("--job-output", "web", "--since", strconv.Itoa(nextOffset(t, r)))
	if strings.Contains(after.stdout, "Serving HTTP") {
		t.Fatalf("the next offset %d comes before the matched line: after it comes %q", nextOffset(t, r), after.stdout)
	}

	fetch := fmt.Sprintf(`python3 -c 'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:%d/").status)'`, port)
	if _, err := exec.LookPath("curl"); err == nil {
		fetch = fmt.Sprintf("curl -s -o /dev/null -w '%%{http_code}\\n' http://127.0.0.1:%d/", port)
	}
	if got := b.run("--", fetch); got != "200\n" {
		t.Fatalf("fetching from the job's server: %q", got)
	}

	// The server logs requests on stderr: kept apart, and waited for.
	r = b.send("--job-wait", "web", "--until", `"GET / HTTP/1\.[01]" 200`)
	expectCode(t, r, 0)
	if !strings.Contains(r.stderr, "matched on the job's stderr") {
		t.Fatalf("want the request log from stderr:\n%v", r)
	}
	if got := b.run("--job-output", "web", "--stderr"); !strings.Contains(got, `"GET / HTTP/1.`) {
		t.Fatalf("--job-output --stderr: %q", got)
	}
	if got := b.run("--job-output", "web"); strings.Contains(got, "GET /") || !strings.Contains(got, "Serving HTTP") {
		t.Fatalf("--job-output mixes stderr in, or lacks the banner: %q", got)
	}
	expectJobList(t, b, "web", "running")

	r = b.send("--job-stop", "web")
	expectCode(t, r, 0) // python ends a server on KeyboardInterrupt with 0
	if !strings.Contains(r.stderr, "Ctrl-C (SIGINT) stopped it") {
		t.Fatalf("want how it stopped:\n%v", r)
	}
	if exists, _ := b.jobWindow("web"); exists {
		t.Fatal("--job-stop left the job's window")
	}
	if r := b.send("--job-output", "web", "--stderr"); r.code != 0 || !strings.Contains(r.stdout, `"GET / HTTP/1.`) {
		t.Fatalf("a stopped job's log stays readable:\n%v", r)
	}
	if b.currentWindow() != human {
		t.Fatal("the jobs changed the human's window")
	}
}

func TestAJobThatFails(t *testing.T) {
	b := startBridge(t)
	b.run("--job", "bad", "--", "echo working; echo 'oops: it broke' >&2; exit 3")
	r := b.send("--job-wait", "bad")
	expectCode(t, r, 3)
	if !strings.Contains(r.stderr, "ended with exit status 3") {
		t.Fatalf("want a note of the end:\n%v", r)
	}
	expectJobList(t, b, "bad", "exit 3")
	var info struct {
		Name       string `json:"name"`
		Running    bool   `json:"running"`
		ExitStatus *int   `json:"exit_status"`
		LastLine   string `json:"last_line"`
	}
	if err := json.Unmarshal([]byte(b.run("--jobs", "--json")), &info); err != nil {
		t.Fatal(err)
	}
	if info.Name != "bad" || info.Running || info.ExitStatus == nil || *info.ExitStatus != 3 || info.LastLine != "oops: it broke" {
		t.Fatalf("--jobs --json: %+v", info)
	}
	if got := b.run("--job-output", "bad"); got != "working\n" {
		t.Fatalf("stdout: %q", got)
	}
	if got := b.run("--job-output", "bad", "--stderr"); got != "oops: it broke\n" {
		t.Fatalf("stderr: %q", got)
	}
	// The window stays, marked finished, with the job's stderr in view.
	var shown string
	b.waitFor("the window to say the job ended", func() bool {
		shown = b.mustTmux("capture-pane", "-p", "-S", "-", "-t", b.jobPane("bad"))
		return strings.Contains(shown, "Job bad has ended (exit status 3)")
	})
	if exists, dead := b.jobWindow("bad"); !exists || !dead || !strings.Contains(shown, "oops: it broke") {
		t.Fatalf("the window: exists %v, dead %v, shows:\n%s", exists, dead, shown)
	}
	// Its name can be used again: the ended job's window goes.
	b.run("--job", "bad", "--", "exit 4")
	if r := b.send("--job-wait", "bad"); r.code != 4 {
		t.Fatalf("the new job:\n%v", r)
	}
	if n := strings.Count(b.mustTmux("list-windows", "-t", "="+b.name+":", "-F", "#{window_name}"), "bad"); n != 1 {
		t.Fatalf("%d windows named bad", n)
	}
}

func TestJobOutputIsWholeBeyondTheScrollback(t *testing.T) {
	b := startBridge(t)
	b.run("--job", "seq", "--", "seq 1 200000")
	expectCode(t, b.send("--job-wait", "seq"), 0)
	want := seqLines(200000)
	for _, raw := range []bool{false, true} {
		args := []string{"--job-output", "seq"}
		if raw {
			args = append(args, "--raw")
		}
		r := b.send(args...)
		if r.code != 0 || r.stdout != want {
			t.Fatalf("raw %v: got %d bytes (%q...%q), want %d", raw, len(r.stdout), head(r.stdout), tail(r.stdout), len(want))
		}
		if !strings.Contains(r.stderr, fmt.Sprintf("next offset %d", len(want))) {
			t.Fatalf("the next offset: %q", r.stderr)
		}
	}
	if limit := b.mustTmux("display-message", "-p", "-t", b.jobPane("seq"), "#{history_limit}"); limit == "" || mustAtoi(t, limit) >= 200000 {
		t.Fatalf("the window's scrollback (%s lines) should be smaller than the output", limit)
	}
}

func seqLines(n int) string {
	var s strings.Builder
	for i := 1; i <= n; i++ {
		s.WriteString(strconv.Itoa(i))
		s.WriteByte('\n')
	}
	return s.String()
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// nextOffset is the offset a --job-output or --job-wait note gives.
func nextOffset(t *testing.T, r result) int {
	t.Helper()
	m := regexp.MustCompile(`next (?:stderr )?offset (\d+)`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no next offset in:\n%v", r)
	}
	return mustAtoi(t, m[1])
}

func TestFollowingAJobsOutputBySinceOffsets(t *testing.T) {
	b := startBridge(t)
	// The job prints when it is fed a line (no echo: only its own output).
	b.run("--job", "log", "--", `stty -echo; printf 'a\nb\n'; read x; printf 'c\nd'; read y; printf 'e\n'`)
	r := b.send("--job-wait", "log", "--until", "^b$")
	expectCode(t, r, 0)
	off := nextOffset(t, r)
	if off != 4 {
		t.Fatalf("after the line b: offset %d", off)
	}
	r = b.send("--job-output", "log", "--since", "4")
	if r.code != 0 || r.stdout != "" || nextOffset(t, r) != 4 {
		t.Fatalf("nothing new yet:\n%v", r)
	}

	b.run("--job-send", "log", "--", "go")
	r = b.send("--job-wait", "log", "--since", "4", "--until", "^d")
	expectCode(t, r, 0)
	if r.stdout != "d\n" || nextOffset(t, r) != 7 {
		t.Fatalf("the line being written matches, and the next offset follows it:\n%v", r)
	}
	r = b.send("--job-output", "log", "--since", "4")
	if r.stdout != "c\n" || nextOffset(t, r) != 6 || !strings.Contains(r.stderr, "left out until it ends") {
		t.Fatalf("--since prints whole lines:\n%v", r)
	}
	r = b.send("--job-output", "log")
	if r.stdout != "a\nb\nc\nd" || nextOffset(t, r) != 6 {
		t.Fatalf("without --since, everything:\n%v", r)
	}

	b.run("--job-send", "log", "--", "go")
	expectCode(t, b.send("--job-wait", "log"), 0)
	r = b.send("--job-output", "log", "--since", "6")
	if r.stdout != "de\n" || nextOffset(t, r) != 9 {
		t.Fatalf("the rest once it ended:\n%v", r)
	}
	if got := b.run("--job-output", "log", "--raw", "--since", "2"); got != "b\nc\nde\n" {
		t.Fatalf("--raw --since 2: %q", got)
	}
	var ans struct {
		Since, Next int
		Text        string
		Running     bool
		ExitStatus  *int `json:"exit_status"`
	}
	if err := json.Unmarshal([]byte(b.run("--job-output", "log", "--since", "4", "--json")), &ans); err != nil {
		t.Fatal(err)
	}
	if ans.Since != 4 || ans.Next != 9 || ans.Text != "c\nde\n" || ans.Running || ans.ExitStatus == nil || *ans.ExitStatus != 0 {
		t.Fatalf("--json: %+v", ans)
	}
}

func TestTheHumanStopsAJobInItsWindow(t *testing.T) {
	b := startBridge(t)
	b.run("--job", "sleeper", "--", "echo sleeping; sleep 1000")
	expectCode(t, b.send("--job-wait", "sleeper", "--until", "sleeping"), 0)
	b.mustTmux("select-window", "-t", b.jobPane("sleeper"))
	human := b.terms[0]
	human.typeKeys("\x03")
	r := b.send("--job-wait", "sleeper")
	expectCode(t, r, 130)
	expectJobList(t, b, "sleeper", "exit 130")
	// The window stays, marked finished, until the human closes it.
	b.waitFor("the window to say the job ended", func() bool {
		return strings.Contains(human.screen(), "Job sleeper has ended (exit status 130)")
	})
	if exists, dead := b.jobWindow("sleeper"); !exists || !dead {
		t.Fatalf("the window: exists %v, dead %v", exists, dead)
	}
	b.mustTmux("kill-window", "-t", b.jobPane("sleeper"))
	b.waitFor("the job to be gone with its window", func() bool {
		return b.send("--job-output", "sleeper").code == 125
	})
}

func TestTwoJobsAtOnce(t *testing.T) {
	b := startBridge(t)
	var wg sync.WaitGroup
	results := make([]result, 2)
	for i, name := range []string{"one", "two"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = b.send("--job", name, "--", fmt.Sprintf("echo I am %s; echo $PTYBRIDGE_JOB; sleep 1000", name))
		}()
	}
	wg.Wait()
	for _, r := range results {
		expectCode(t, r, 0)
	}
	for _, name := range []string{"one", "two"} {
		expectCode(t, b.send("--job-wait", name, "--until", "^"+name+"$"), 0)
		if got := b.run("--job-output", name); got != "I am "+name+"\n"+name+"\n" {
			t.Fatalf("%s printed %q", name, got)
		}
		expectJobList(t, b, name, "running")
	}
	if r := b.send("--job", "one", "--", "true"); r.code != 125 || !strings.Contains(r.stderr, "a job named one is running already") ||
		!strings.Contains(r.stderr, "hint: ") {
		t.Fatalf("a name taken by a running job:\n%v", r)
	}
	for _, name := range []string{"one", "two"} {
		expectCode(t, b.send("--job-stop", name), 130)
		expectJobList(t, b, name, "exit 130")
	}
}

func TestJobSendTypesTextLiterally(t *testing.T) {
	b := startBridge(t)
	b.run("--job", "reader", "--", `stty -echo; echo ready; while IFS= read -r l; do printf '[%s]\n' "$l"; done`)
	expectCode(t, b.send("--job-wait", "reader", "--until", "^ready$"), 0)
	text := "price $5 `uname` $(id) \\n 'q' \"dq\"\n  indented\tand a TAB; C-c Enter"
	b.run("--job-send", "reader", "--", text)
	want := "ready\n[price $5 `uname` $(id) \\n 'q' \"dq\"]\n[  indented\tand a TAB; C-c Enter]\n"
	r := b.send("--job-wait", "reader", "--until", `C-c Enter\]$`)
	expectCode(t, r, 0)
	if got := b.run("--job-output", "reader"); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}

	// Typed without Enter, then Enter alone.
	b.run("--job-send", "reader", "--no-enter", "--", "half")
	b.run("--job-send", "reader", "--", "-way")
	expectCode(t, b.send("--job-wait", "reader", "--until", `^\[half-way\]$`), 0)

	// A long text arrives whole.
	var long strings.Builder
	var wantLong strings.Builder
	for i := range 300 {
		line := fmt.Sprintf("%04d %s", i, strings.Repeat("x", 95))
		long.WriteString(line + "\n")
		wantLong.WriteString("[" + line + "]\n")
	}
	b.run("--job-send", "reader", "--", strings.TrimSuffix(long.String(), "\n"))
	expectCode(t, b.send("--job-wait", "reader", "--until", `^\[0299 `), 0)
	if got := b.run("--job-output", "reader"); !strings.HasSuffix(got, wantLong.String()) {
		t.Fatalf("the long text: got %d bytes, %q...", len(got), tail(got))
	}
	b.run("--job-keys", "reader", "--", "C-d")
	expectCode(t, b.send("--job-wait", "reader"), 0)
	if r := b.send("--job-send", "reader", "--", "late"); r.code != 125 || !strings.Contains(r.stderr, "has ended") {
		t.Fatalf("typing into an ended job:\n%v", r)
	}
}

func TestAPagerDrivenWithJobKeysAndRead(t *testing.T) {
	needProgram(t, "less")
	b := startBridge(t)
	file := filepath.Join(b.dir, "numbers.txt")
	if err := os.WriteFile(file, []byte(seqLines(1000)), 0o600); err != nil {
		t.Fatal(err)
	}
	b.run("--job", "pager", "--", "less "+file)
	var s struct {
		Rows            []string `json:"rows"`
		CursorRow       int      `json:"cursor_row"`
		Height          int      `json:"height"`
		AlternateScreen bool     `json:"alternate_screen"`
	}
	screen := func() {
		t.Helper()
		if err := json.Unmarshal([]byte(b.run("--job-screen", "pager", "--json")), &s); err != nil {
			t.Fatal(err)
		}
	}
	b.waitFor("less to show the file", func() bool { screen(); return s.AlternateScreen && s.Rows[0] == "1" })
	b.run("--job-keys", "pager", "--", "G")
	b.waitFor("less to show the end", func() bool {
		screen()
		return strings.Contains(strings.Join(s.Rows, "\n"), "1000\n(END)")
	})
	r := b.send("--job-screen", "pager")
	if !strings.Contains(r.stdout, "999\n1000\n(END)") || !strings.Contains(r.stderr, "alternate screen") ||
		!strings.Contains(r.stderr, fmt.Sprintf("cursor at row %d,", s.Height)) {
		t.Fatalf("--job-screen:\n%v", r)
	}
	b.run("--job-keys", "pager", "--", "q")
	expectCode(t, b.send("--job-wait", "pager"), 0)
}

func TestJobNamesAreCheckedAndUnknownOnesExplained(t *testing.T) {
	b := startBridge(t)
	for _, name := range []string{"with space", "semi;colon", "dot.ted", strings.Repeat("n", 41), "ünï"} {
		r := b.send("--job", name, "--", "true")
		if r.code != 125 || !strings.Contains(r.stderr, "invalid job name") || !strings.Contains(r.stderr, "hint: ") {
			t.Fatalf("--job %q:\n%v", name, r)
		}
	}
	b.run("--job", "Ok_name-"+strings.Repeat("9", 32), "--", "true")
	for _, args := range [][]string{
		{"--job-output", "nosuch"}, {"--job-wait", "nosuch"}, {"--job-stop", "nosuch"},
		{"--job-send", "nosuch", "--", "x"}, {"--job-keys", "nosuch", "--", "q"}, {"--job-screen", "nosuch"},
	} {
		r := b.send(args...)
		if r.code != 125 || !strings.Contains(r.stderr, "no job named nosuch") || !strings.Contains(r.stderr, "Ok_name-") ||
			!strings.Contains(r.stderr, "hint: ptysend --jobs") {
			t.Fatalf("%q:\n%v", args, r)
		}
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--job", "x"}, "needs the job's command"},
		{[]string{"--job-keys", "x"}, "needs key names"},
		{[]string{"--until", "x", "--", "true"}, "--until goes with --job-wait"},
		{[]string{"--job", "x", "--job-stop", "y"}, "not several"},
		{[]string{"--job", "x", "--env", "NOEQUALS", "--", "true"}, "invalid --env"},
		{[]string{"--job", "x", "--cwd", "/no/such/dir", "--", "true"}, "no such directory"},
		{[]string{"--job-wait", "x", "--until", "(unclosed"}, "not a regular expression"},
	} {
		r := b.send(c.args...)
		if r.code != 125 || !strings.Contains(r.stderr, c.msg) {
			t.Fatalf("%q: want exit 125 and %q:\n%v", c.args, c.msg, r)
		}
	}
}

func TestJobStopInTwoPhasesAndThenSIGKILL(t *testing.T) {
	for _, c := range []struct {
		name, command string
		status        int
		how           string
	}{
		{"traps-int", `trap "" INT; echo ready; sleep 1000`, 131, "it ignored Ctrl-C; Ctrl-\\ (SIGQUIT) stopped it"},
		{"traps-both", `trap "" INT QUIT; echo ready; sleep 1000`, 137, "SIGKILL to its process group stopped it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := startBridge(t)
			b.run("--job", c.name, "--", c.command)
			expectCode(t, b.send("--job-wait", c.name, "--until", "ready"), 0)
			r := b.send("--job-stop", c.name)
			expectCode(t, r, c.status)
			if !strings.Contains(r.stderr, c.how) {
				t.Fatalf("want %q:\n%v", c.how, r)
			}
			if exists, _ := b.jobWindow(c.name); exists {
				t.Fatal("the window stays")
			}
		})
	}
}

func TestAJobTakesTheSharedShellsKindDirectoryAndEnvironment(t *testing.T) {
	for _, shell := range []string{"bash", "fish"} {
		t.Run(shell, func(t *testing.T) {
			t.Parallel()
			sh := shellByName(t, shell)
			b := startShellBridge(t, sh, withEnv("PTB_AT_START", "carried"))
			sub := filepath.Join(b.dir, "sub dir")
			if err := os.MkdirAll(filepath.Join(sub, "inner"), 0o700); err != nil {
				t.Fatal(err)
			}
			// The directory the shell is in now; not what it exported since it started.
			later := "export PTB_LATER=later"
			if shell == "fish" {
				later = "set -x PTB_LATER later"
			}
			b.run("--", "cd '"+sub+"'; "+later)
			// Code in the shell's own syntax.
			command := `echo "$PTB_AT_START/$PTB_SET/$PTYBRIDGE_JOB/$PTB_LATER"; pwd; echo $0`
			if shell == "fish" {
				command = `set -l v "$PTB_AT_START/$PTB_SET/$PTYBRIDGE_JOB/$PTB_LATER"; echo $v; pwd; status current-command`
			}
			b.run("--job", "env", "--env", "PTB_SET=given", "--", command)
			expectCode(t, b.send("--job-wait", "env"), 0)
			got := strings.Split(b.run("--job-output", "env"), "\n")
			if len(got) < 3 || got[0] != "carried/given/env/" || got[1] != sub {
				t.Fatalf("the job printed %q", got)
			}
			b.run("--job", "rel", "--cwd", "inner", "--", "pwd")
			expectCode(t, b.send("--job-wait", "rel"), 0)
			if got := b.run("--job-output", "rel"); got != filepath.Join(sub, "inner")+"\n" {
				t.Fatalf("--cwd inner: %q", got)
			}
		})
	}
}

// spareReady reports whether a spare window waits for the next job, its
// keeper listening.
func (b *bridge) spareReady() bool {
	tok, err := os.ReadFile(filepath.Join(b.runtimeDir(), b.name+".spare"))
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(b.runtimeDir(), b.name+".spare-"+string(tok)+".sock"))
	return err == nil
}

func TestTheNextJobTakesASpareWindowThatEndsWithTheBridge(t *testing.T) {
	b := startBridge(t)
	human := b.currentWindow()
	b.run("--job", "first", "--", "sleep 1000")
	b.waitFor("a spare window for the next job", b.spareReady)
	spare := "=" + b.name + "-spare:"
	spares := b.mustTmux("list-panes", "-s", "-t", spare, "-F", "#{pane_id}")
	if strings.Contains(b.run("--jobs"), "spare") {
		t.Fatal("the spare is listed as a job")
	}

	b.run("--job", "second", "--", "echo second; sleep 1000")
	expectCode(t, b.send("--job-wait", "second", "--until", "^second$"), 0)
	var info struct{ Pane string }
	for _, line := range strings.Split(b.run("--jobs", "--json"), "\n") {
		if strings.Contains(line, `"name":"second"`) {
			json.Unmarshal([]byte(line), &info)
		}
	}
	if info.Pane == "" || !strings.Contains(spares, info.Pane) {
		t.Fatalf("the second job runs in %q, not in a spare (%q)", info.Pane, spares)
	}
	where := b.mustTmux("display-message", "-p", "-t", info.Pane, "#{session_name} #{window_name} #{remain-on-exit}")
	if where != b.name+" second on" || b.currentWindow() != human {
		t.Fatalf("the taken spare: %q; the human's window %s (was %s)", where, b.currentWindow(), human)
	}
	expectCode(t, b.send("--job-stop", "second"), 130)

	// The hidden session goes with the shared shell.
	b.waitFor("the next spare", b.spareReady)
	b.terms[0].close()
	b.waitFor("the spare session to end with the bridge", func() bool {
		_, err := b.tmux("has-session", "-t", spare)
		return err != nil
	})
	// The jobs end with the bridge session: their keepers are gone.
	b.waitFor("the jobs' keepers to go", func() bool {
		left, _ := filepath.Glob(filepath.Join(b.runtimeDir(), b.name+".job-*.sock"))
		spares, _ := filepath.Glob(filepath.Join(b.runtimeDir(), b.name+".spare*"))
		return len(left) == 0 && len(spares) == 0
	})
}

func TestJobWaitTimesOutAndTheJobRunsOn(t *testing.T) {
	b := startBridge(t)
	b.run("--job", "quiet", "--", "echo started; sleep 1000")
	r := b.send("--job-wait", "quiet", "--until", "never", "--timeout", "0.3")
	if r.code != 124 || !strings.Contains(r.stderr, "printed nothing for 300ms (--timeout)") || !strings.Contains(r.stderr, "still runs") {
		t.Fatalf("--timeout:\n%v", r)
	}
	r = b.send("--job-wait", "quiet", "--timeout", "0", "--max-time", "0.3")
	if r.code != 124 || !strings.Contains(r.stderr, "(--max-time)") {
		t.Fatalf("--max-time:\n%v", r)
	}
	expectJobList(t, b, "quiet", "running")
}

func TestAJobBesideABridgeOpenedOnAProgram(t *testing.T) {
	needProgram(t, "python3")
	b := newWorld(t)
	b.openTerminal("--", "python3", "-q")
	b.waitReady()
	// No shell runs in the shared pane: the job gets the login shell
	// ($SHELL), in the pane's directory.
	b.run("--job", "beside", "--", `echo "$0 in $PWD"`)
	expectCode(t, b.send("--job-wait", "beside"), 0)
	if got := b.run("--job-output", "beside"); got != "bash in "+b.dir+"\n" {
		t.Fatalf("the job printed %q", got)
	}
}

// --show opens the job beside the user's shell, in the window they look at; the job modes work on
// it as on a job in a window of its own, and stopping it gives the user's window back as it was.
func TestAJobShownBesideTheUsersShell(t *testing.T) {
	b := startBridge(t)
	window := "=" + b.name + ":"
	panes := func() []string {
		out, err := b.tmux("list-panes", "-t", window, "-F", "#{pane_id}")
		must(t, err)
		return strings.Fields(out)
	}
	if n := len(panes()); n != 1 {
		t.Fatalf("the user's window starts with one pane, has %d", n)
	}
	r := b.send("--job", "watch", "--show", "--", `echo shown; read line; echo "got $line"; sleep 300`)
	if r.code != 0 || !strings.Contains(r.stderr, "beside the user's shell") {
		t.Fatalf("--job --show:\n%v", r)
	}
	if n := len(panes()); n != 2 {
		t.Fatalf("the job must be a pane of the user's window: %d panes", n)
	}
	expectCode(t, b.send("--job-wait", "watch", "--until", "^shown$"), 0)
	expectCode(t, b.send("--job-keys", "watch", "--", "hi", "Enter"), 0)
	expectCode(t, b.send("--job-wait", "watch", "--until", "^got hi$"), 0)
	if s := b.send("--job-screen", "watch"); !strings.Contains(s.stdout, "got hi") {
		t.Fatalf("--job-screen of the shown job:\n%v", s)
	}
	if got := b.run("--", "echo the shared shell still works"); got != "the shared shell still works\n" {
		t.Fatalf("got %q", got)
	}
	expectCode(t, b.send("--job-stop", "watch"), 130)
	b.waitFor("the user's window to have its one pane again", func() bool { return len(panes()) == 1 })
}
