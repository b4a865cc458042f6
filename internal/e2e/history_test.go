package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// historyEntry is one line of ptysend --history --json.
type historyEntry struct {
	ID            int     `json:"id"`
	Who           string  `json:"who"`
	Command       string  `json:"command"`
	Running       bool    `json:"running"`
	Status        *int    `json:"status"`
	StartedAt     string  `json:"started_at"`
	EndedAt       *string `json:"ended_at"`
	DurationMS    int64   `json:"duration_ms"`
	Cwd           string  `json:"cwd"`
	ShellPID      int     `json:"shell_pid"`
	OutputBytes   int64   `json:"output_bytes"`
	OutputLeftOut int64   `json:"output_left_out"`
}

// history is ptysend --history=N --json, parsed; it must succeed with no
// tmux process on its path.
func (b *bridge) history(n int) []historyEntry {
	b.t.Helper()
	r := b.sendWithoutTmux(fmt.Sprintf("--history=%d", n), "--json")
	if r.code != 0 || r.stderr != "" {
		b.t.Fatalf("ptysend --history --json:\n%v", r)
	}
	var es []historyEntry
	for _, line := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		if line == "" {
			continue
		}
		var e historyEntry
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			b.t.Fatalf("--history --json line %q: %v", line, err)
		}
		es = append(es, e)
	}
	return es
}

// lastFinished waits until the history's last command is command,
// finished, and returns it.
func (b *bridge) lastFinished(command string) historyEntry {
	b.t.Helper()
	var last historyEntry
	b.waitFor(fmt.Sprintf("%q to finish in the history", command), func() bool {
		es := b.history(100)
		if len(es) == 0 {
			return false
		}
		last = es[len(es)-1]
		return last.Command == command && !last.Running
	})
	return last
}

// status is ptysend --status --json, parsed, with its exit code; it
// must succeed with no tmux process on its path.
func (b *bridge) status() (map[string]any, int) {
	b.t.Helper()
	r := b.sendWithoutTmux("--status", "--json")
	var s map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		b.t.Fatalf("ptysend --status --json: %v\n%v", err, r)
	}
	return s, r.code
}

// waitForState waits until --status says state, and returns its answer.
// A state of the shell's is waited for until the hooks have spoken: a
// shell whose prompt has not come since the call that installed them is
// idle as far as /proc can tell, with no hooks yet.
func (b *bridge) waitForState(state string) (map[string]any, int) {
	b.t.Helper()
	return b.waitForStatus("--status to say "+state, func(s map[string]any) bool {
		shell, _ := s["shell"].(map[string]any)
		return s["state"] == state && (shell == nil || shell["hooks"] == true)
	})
}

// waitForStatus waits until --status --json passes ok.
func (b *bridge) waitForStatus(what string, ok func(map[string]any) bool) (map[string]any, int) {
	b.t.Helper()
	var s map[string]any
	var code int
	b.waitFor(what, func() bool {
		s, code = b.status()
		return ok(s)
	})
	return s, code
}

func TestTheHistoryShowsWhoRanWhatInEachShell(t *testing.T) {
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			human := b.terms[0]
			b.run("--", sh.setVars) // cd /usr/share
			if got := b.run("--", "echo agent-said-this"); got != "agent-said-this\n" {
				t.Fatalf("got %q", got)
			}
			human.typeKeys("ls /nonexistent\r")
			failed := b.lastFinished("ls /nonexistent")

			es := b.history(10)
			if len(es) != 3 {
				t.Fatalf("want the agent's two commands and the user's, got %+v", es)
			}
			setVars, echo := es[0], es[1]
			if setVars.Who != "agent" || setVars.Command != sh.setVars || setVars.Status == nil || *setVars.Status != 0 || setVars.Cwd != b.dir { // where it started
				t.Errorf("the agent's first command: %+v", setVars)
			}
			if echo.Who != "agent" || echo.Command != "echo agent-said-this" || echo.Status == nil || *echo.Status != 0 {
				t.Errorf("the agent's second command: %+v", echo)
			}
			if failed.Who != "user" || failed.Status == nil || *failed.Status != 2 || failed.Cwd != "/usr/share" ||
				failed.EndedAt == nil || failed.DurationMS < 0 || failed.OutputBytes == 0 || !(echo.ID < failed.ID) {
				t.Errorf("the user's failing command: %+v", failed)
			}

			// The text form: one line each, oldest first.
			r := b.sendWithoutTmux("--history")
			lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
			if r.code != 0 || len(lines) != 3 {
				t.Fatalf("ptysend --history:\n%v", r)
			}
			line := regexp.MustCompile(`^(\d+) +(user|agent) +(\S+) +\d\d:\d\d:\d\d +[0-9.]+s +(.+?) +(.+)$`)
			m := line.FindStringSubmatch(lines[2])
			if m == nil || m[1] != strconv.Itoa(failed.ID) || m[2] != "user" || m[3] != "2" || m[4] != "/usr/share" || m[5] != "ls /nonexistent" {
				t.Fatalf("the user's command in --history: %q", lines[2])
			}
			if m := line.FindStringSubmatch(lines[1]); m == nil || m[2] != "agent" || m[3] != "0" || m[5] != "echo agent-said-this" {
				t.Fatalf("the agent's command in --history: %q", lines[1])
			}
			if r := b.sendWithoutTmux("--history=1"); strings.Count(r.stdout, "\n") != 1 || !strings.Contains(r.stdout, "ls /nonexistent") {
				t.Fatalf("--history=1 shows the last command only:\n%v", r)
			}

			// What they printed.
			r = b.sendWithoutTmux("--output")
			if r.code != 0 || !strings.HasPrefix(r.stdout, "ls: cannot access '/nonexistent': No such file or directory\n") || strings.Contains(r.stdout, "$") {
				t.Fatalf("--output shows the user's last command's error text, and nothing else:\n%v", r)
			}
			if r := b.sendWithoutTmux(fmt.Sprintf("--output=%d", echo.ID)); r.code != 0 || r.stdout != "agent-said-this\n" {
				t.Fatalf("--output=%d shows the agent's command's output:\n%v", echo.ID, r)
			}
			r = b.sendWithoutTmux("--output=999")
			if r.code != 125 || !strings.Contains(r.stderr, "no command with id 999") || !strings.Contains(r.stderr, "--history") {
				t.Fatalf("an unknown id:\n%v", r)
			}

			// A long output keeps its first and last parts, and says how
			// much it left out.
			human.typeKeys("seq 1 200000\r")
			long := b.lastFinished("seq 1 200000")
			r = b.sendWithoutTmux("--output")
			head, tail, ok := strings.Cut(r.stdout, "[ptybridge: ")
			note, tail, _ := strings.Cut(tail, "\n")
			var left int64
			fmt.Sscanf(note, "%d bytes of output left out here]", &left)
			if !ok || !strings.HasPrefix(head, "1\n2\n3\n") || !strings.HasSuffix(tail, "199999\n200000\n") || left <= 0 ||
				long.OutputLeftOut <= 0 || len(r.stdout) > 1<<20+100 || len(head) < 400_000 || len(tail) < 400_000 {
				t.Fatalf("--output of a long output: %d bytes, %q ... %q ... %q", len(r.stdout), head[:min(len(head), 20)], note, tail[max(0, len(tail)-20):])
			}
			// (fish sets the terminal's title as the command starts: raw
			// output has it.)
			if r := b.sendWithoutTmux("--output", "--raw"); r.code != 0 || !strings.Contains(r.stdout, "1\n2\n3\n") || !strings.Contains(r.stdout, "bytes of output left out here]\n") {
				t.Fatalf("--output --raw: %q...", r.stdout[:min(len(r.stdout), 100)])
			}

			// A command of several lines: the shells that say the line say
			// all of it; dash's is its first line, as the terminal echoed it.
			human.typeKeys("echo 'multi\rline'\r")
			want := "echo 'multi\nline'"
			if sh.name == "dash" {
				want = "echo 'multi"
			}
			if e := b.lastFinished(want); e.Who != "user" || *e.Status != 0 {
				t.Fatalf("the command of two lines: %+v", e)
			}
		})
	}
}

func TestStatusSaysWhatHoldsTheTerminalInEachShell(t *testing.T) {
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			human := b.terms[0]
			b.run("--", sh.setVars)

			// Idle, and every field of the JSON.
			s, code := b.waitForState("idle")
			shell, _ := s["shell"].(map[string]any)
			if code != 0 || s["bridge"] != "up" || s["session"] != b.name || s["free"] != true || s["copy_mode"] != false ||
				s["half_typed_line"] != false || s["agent_call"] != nil || shell == nil || shell["kind"] != sh.name ||
				shell["cwd"] != "/usr/share" || shell["user"] != currentUser() || shell["hooks"] != true || shell["pid"].(float64) <= 0 {
				t.Fatalf("an idle terminal (exit %d): %v", code, s)
			}
			r := b.sendWithoutTmux("--status")
			for _, want := range []string{"bridge: up", "shell: " + sh.name, "user " + currentUser(), "in /usr/share", "state: idle", "free: yes"} {
				if r.code != 0 || !strings.Contains(r.stdout, want) {
					t.Fatalf("--status lacks %q:\n%v", want, r)
				}
			}

			// A pager: busy, exit 75, named, with the key that leaves it.
			human.typeKeys("less /etc/os-release\r")
			s, code = b.waitForStatus("less in the foreground", func(s map[string]any) bool {
				program, _ := s["program"].(map[string]any)
				return program != nil && program["name"] == "less"
			})
			if program, _ := s["program"].(map[string]any); code != 75 || s["state"] != "busy" || s["free"] != false || program == nil || program["name"] != "less" ||
				!strings.Contains(fmt.Sprint(s["hint"]), "press q") {
				t.Fatalf("less open (exit %d): %v", code, s)
			}
			r = b.sendWithoutTmux("--status")
			if r.code != 75 || !strings.Contains(r.stdout, "state: busy: less") {
				t.Fatalf("--status with less open:\n%v", r)
			}
			expectQueriesWork(t, b)
			// The user's last command is the one that runs: what it showed so
			// far. less is in the foreground a moment before it draws the file.
			b.waitForScreen(human, "ID=debian")
			if r := b.sendWithoutTmux("--output"); r.code != 0 || !strings.Contains(r.stdout, "ID=debian") {
				t.Fatalf("--output of the running less:\n%v", r)
			}
			human.typeKeys("q")
			b.waitForState("idle")

			// Copy mode.
			human.typeKeys("\x02[")
			b.waitForCopyMode(true)
			s, code = b.waitForState("copy_mode")
			if code != 75 || s["copy_mode"] != true {
				t.Fatalf("copy mode (exit %d): %v", code, s)
			}
			expectQueriesWork(t, b)
			human.typeKeys("q")
			b.waitForCopyMode(false)
			b.waitForState("idle")

			// A half-typed line.
			human.typeKeys("echo half")
			s, code = b.waitForState("half_typed_line")
			if code != 75 || s["half_typed_line"] != true {
				t.Fatalf("a half-typed line (exit %d): %v", code, s)
			}
			human.typeKeys("\r") // the user finishes the line: it runs, and a new prompt comes
			b.waitForState("idle")

			// A REPL of the agent's.
			b.run("--repl-start", "python3")
			s, code = b.status()
			if rp, _ := s["repl"].(map[string]any); code != 75 || s["state"] != "repl" || rp == nil || rp["program"] != "python3" || rp["started_by"] != "agent" {
				t.Fatalf("a REPL open (exit %d): %v", code, s)
			}
			if r := b.sendWithoutTmux("--status"); r.code != 75 || !strings.Contains(r.stdout, "a REPL is open: python3") {
				t.Fatalf("--status with a REPL open:\n%v", r)
			}
			expectQueriesWork(t, b)
			b.closeREPL()
			b.waitForState("idle")
		})
	}
}

// expectQueriesWork checks that --history and --output answer, with no
// tmux process, while the terminal is not free.
func expectQueriesWork(t *testing.T, b *bridge) {
	t.Helper()
	if len(b.history(5)) == 0 {
		t.Fatal("--history must list the commands so far")
	}
	if r := b.sendWithoutTmux("--output=1"); r.code != 0 {
		t.Fatalf("--output=1 must answer:\n%v", r)
	}
}

// Right after a call returns, its shell may still be on its way back to the prompt: --status and
// --sessions wait for that moment to pass instead of calling the terminal busy with a command of
// the user's, which no command of anyone's was.
func TestStatusAndSessionsRightAfterACallSayFree(t *testing.T) {
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			b := startShellBridge(t, sh)
			for i := range 30 {
				b.run("--", "true")
				if r := b.sendWithoutTmux("--status"); r.code != 0 || !strings.Contains(r.stdout, "free: yes") {
					t.Fatalf("--status right after call %d:\n%v", i, r)
				}
				b.run("--", "true")
				if r := b.send("--sessions"); r.code != 0 || !strings.Contains(r.stdout, "\tfree\t") {
					t.Fatalf("--sessions right after call %d:\n%v", i, r)
				}
			}
		})
	}
}

func TestStatusNamesTheCallThatHoldsTheTerminal(t *testing.T) {
	t.Parallel()
	b := startBridge(t)
	fifo := filepath.Join(b.dir, "gate")
	must(t, syscall.Mkfifo(fifo, 0o600))
	b.run("--", "true")
	done := make(chan result, 1)
	go func() { done <- b.send("--", "cat "+fifo) }()
	s, code := b.waitForStatus("the call to hold the terminal and say what it runs", func(s map[string]any) bool {
		call, _ := s["agent_call"].(map[string]any)
		running, _ := s["running_command"].(map[string]any)
		return s["state"] == "agent_call" && call != nil && call["call"] != "" && running != nil
	})
	call, _ := s["agent_call"].(map[string]any)
	running, _ := s["running_command"].(map[string]any)
	if code != 75 || call == nil || call["call"] != "cat "+fifo || running == nil || running["who"] != "agent" || running["command"] != "cat "+fifo {
		t.Fatalf("a call holds the terminal (exit %d): %v", code, s)
	}
	if r := b.sendWithoutTmux("--status"); r.code != 75 || !strings.Contains(r.stdout, `agent call: "cat `+fifo+`"`) {
		t.Fatalf("--status:\n%v", r)
	}
	// The history shows it running, with its output so far.
	if es := b.history(10); len(es) != 2 || !es[1].Running || es[1].Who != "agent" {
		t.Fatalf("history while it runs: %+v", es)
	}
	must(t, os.WriteFile(fifo, []byte("through the gate\n"), 0o600))
	if r := <-done; r.stdout != "through the gate\n" {
		t.Fatalf("the call: %v", r)
	}
	b.waitForState("idle")
}

func TestStatusWithoutABridge(t *testing.T) {
	b := newWorld(t)
	r := b.send("--status")
	if r.code != 125 || !strings.Contains(r.stdout, "bridge: down") || !strings.Contains(r.stderr, "ptybridge") {
		t.Fatalf("no bridge:\n%v", r)
	}
	r = b.send("--status", "--json")
	var s map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil || r.code != 125 || s["bridge"] != "down" || s["free"] != false {
		t.Fatalf("no bridge, JSON:\n%v", r)
	}
	for _, args := range [][]string{{"--history"}, {"--output"}} {
		if r := b.send(args...); r.code != 125 || r.stdout != "" {
			t.Fatalf("%v without a bridge:\n%v", args, r)
		}
	}
}

func TestTheReadOnlyModesRefuseBadArguments(t *testing.T) {
	b := newWorld(t)
	for _, args := range [][]string{
		{"--history=0"}, {"--history=x"}, {"--output=0"}, {"--output=abc"},
		{"--status", "--history"}, {"--output", "--", "ls"}, {"--json", "--output"}, {"--json", "--", "ls"},
	} {
		if r := b.send(args...); r.code != 125 || !strings.Contains(r.stderr, "ptysend: error:") {
			t.Errorf("%q: want a usage error, got:\n%v", args, r)
		}
	}
}

func TestAQueryRepairsOrReplacesTheRelay(t *testing.T) {
	b := startBridge(t)
	sock := filepath.Join(b.runtimeDir(), b.name+".sock")
	// A dead relay is repaired, as for a call.
	pid := relayPID(t, b)
	must(t, syscall.Kill(pid, syscall.SIGKILL))
	if r := b.send("--status"); r.code != 0 {
		t.Fatalf("--status after the relay died:\n%v", r)
	}
	if relayPID(t, b) == pid {
		t.Fatal("the dead relay was not replaced")
	}
	// A live relay of an older version, which answers with its own
	// greeting, is replaced.
	pid = relayPID(t, b)
	must(t, os.Remove(sock))
	old, err := net.Listen("unix", sock)
	must(t, err)
	go func() {
		for {
			c, err := old.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("ptybridge-relay 7 %0 1 unknown:0 x:0:unknown\n"))
			c.Close()
		}
	}()
	defer old.Close()
	if r := b.send("--history"); r.code != 0 {
		t.Fatalf("--history with a relay of an older version:\n%v", r)
	}
	b.waitFor("the old relay to exit", func() bool { return syscall.Kill(pid, 0) != nil })
	if got := b.run("--", "echo still-works"); got != "still-works\n" {
		t.Fatalf("got %q", got)
	}
	if es := b.history(10); len(es) != 1 || es[0].Command != "echo still-works" {
		t.Fatalf("the new relay's history: %+v", es)
	}
}
