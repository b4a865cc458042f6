package relay

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
)

const callID markers.ID = "0123456789abcdef"

// fakeClock ticks one second per reading.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time {
	c.t = c.t.Add(time.Second)
	return c.t
}

// historyWorld is a history fed through a tracker, as the relay feeds it.
type historyWorld struct {
	h  *history
	tr markers.Tracker
}

func newHistoryWorld() *historyWorld {
	cwd := func(pid int) string {
		if pid <= 0 {
			return ""
		}
		return fmt.Sprintf("/proc-cwd-of-%d", pid)
	}
	w := &historyWorld{h: newHistory(cwd, func() string { return "" })}
	clock := &fakeClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	w.h.now = clock.now
	w.tr.Sink = w.h
	return w
}

func (w *historyWorld) feed(parts ...string) *historyWorld {
	for _, p := range parts {
		w.tr.Write([]byte(p))
	}
	return w
}

// only is the one entry of the history.
func (w *historyWorld) only(t *testing.T) Entry {
	t.Helper()
	es := w.h.Entries(100)
	if len(es) != 1 {
		t.Fatalf("want one entry, got %+v", es)
	}
	return es[0]
}

func (w *historyWorld) output(t *testing.T, id int) string {
	t.Helper()
	r := w.h.Find(id)
	if r == nil {
		t.Fatalf("no entry %d", id)
	}
	return string(r.out.Render())
}

func status(n int) *int { return &n }

// check compares what --history shows of an entry.
func check(t *testing.T, got Entry, who, command string, st *int, dir string) {
	t.Helper()
	if got.Who != who || got.Command != command || fmt.Sprint(got.Status) != fmt.Sprint(st) && (got.Status == nil || st == nil || *got.Status != *st) || got.Dir != dir || got.Running {
		t.Fatalf("want a finished %s command %q, status %v, in %s; got %+v (status %v)", who, command, fmtStatus(st), dir, got, fmtStatus(got.Status))
	}
}

func fmtStatus(s *int) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprint(*s)
}

const prompt = "\x1b[?2004h$ "

func TestHistoryOfTheHumansCommandsInEachShell(t *testing.T) {
	p := promptEvent
	cases := []struct {
		name   string
		stream []string
		dir    string
	}{
		{"bash: the line comes from the history when it finished", []string{
			finishedEvent(7, 0, "/srv", ""), prompt, p(7), "ls /nonexistent\r\n\x1b[?2004l\r", commandEvent(7),
			"ls: cannot access '/nonexistent'\r\n", finishedEvent(7, 2, "/srv", "ls /nonexistent"), "prompt-command-ran\r\n", prompt, p(7)}, "/srv"},
		{"bash: a line kept out of its history is named by its echo", []string{
			finishedEvent(7, 0, "/srv", ""), prompt, p(7), "ls /nonex\x08 \x08\x08 \x08existent\r\n\x1b[?2004l\r", commandEvent(7),
			"ls: cannot access '/nonexistent'\r\n", finishedEvent(7, 2, "/srv", ""), prompt, p(7)}, "/srv"},
		{"zsh: the line comes with COMMAND", []string{
			finishedEvent(7, 0, "/srv", ""), "$ ", p(7), "\x1b[?2004hl\x08ls /nonexistent\x1b[?2004l\r\r\n", commandLineEvent(7, "ls /nonexistent"),
			"ls: cannot access '/nonexistent'\r\n", "\x1b[1m\x1b[7m%\x1b[27m\x1b[1m\x1b[0m   \r \r", finishedEvent(7, 2, "/srv", ""), "$ ", p(7)}, "/srv"},
		{"dash: the line is the echo up to Enter, the directory /proc's", []string{
			"$ ", p(7), "ls /nonexistent\r\n", "ls: cannot access '/nonexistent'\r\n",
			"\x1b]6973;ptybridge;F;7;2\a", "$ ", p(7)}, "/proc-cwd-of-7"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newHistoryWorld().feed(c.stream...)
			check(t, w.only(t), ByUser, "ls /nonexistent", status(2), c.dir)
			out := w.output(t, 0)
			if !strings.HasPrefix(out, "ls: cannot access '/nonexistent'\n") || strings.Contains(out, "ptybridge") || strings.Contains(out, "prompt-command-ran") {
				t.Fatalf("the output must be the command's, without markers or prompt: %q", out)
			}
		})
	}
}

func TestHistoryOfAnAgentsCommand(t *testing.T) {
	p := promptEvent
	source := " . '/rt/" + string(callID) + ".sh'"
	agent := []string{"[agent] $ make\r\n", markers.Start(callID), "built\r\n", markers.End(callID, 3)}
	cases := []struct {
		name   string
		stream []string
		dir    string
	}{
		{"in a shell with hooks", append(append([]string{finishedEvent(7, 0, "/src", ""), prompt, p(7), source + "\r\n", commandEvent(7)}, agent...),
			finishedEvent(7, 0, "/src", ""), prompt, p(7)), "/src"},
		{"in a shell with a line from COMMAND", append(append([]string{finishedEvent(7, 0, "/src", ""), prompt, p(7), source + "\r\n", commandLineEvent(7, source)}, agent...),
			finishedEvent(7, 0, "/src", ""), prompt, p(7)), "/src"},
		{"in dash", append(append([]string{"$ ", p(7), source + "\r\n"}, agent...),
			"\x1b]6973;ptybridge;F;7;0\a$ ", p(7)), "/proc-cwd-of-7"},
		{"before the hooks", append([]string{"$ " + source + "\r\n"}, agent...), ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newHistoryWorld()
			w.h.Runs(callID, "make")
			w.h.Typed([]byte(source + "\r"))
			w.feed(c.stream...)
			check(t, w.only(t), ByAgent, "make", status(3), c.dir)
			if out := w.output(t, 1); out != "built\n" {
				t.Fatalf("the output must be what the call got, got %q", out)
			}
			if w.h.Find(0) != nil {
				t.Fatal("the agent's command is no command of the user's")
			}
		})
	}
}

func TestHistoryOfAnAgentsCommandThatWasInterrupted(t *testing.T) {
	source := " . '/rt/" + string(callID) + ".sh'"
	w := newHistoryWorld()
	w.h.Runs(callID, "sleep 300")
	w.h.Typed([]byte(source + "\r"))
	w.feed(finishedEvent(7, 0, "/src", ""), prompt, promptEvent(7), source+"\r\n", commandEvent(7), markers.Start(callID), "^C\r\n",
		finishedEvent(7, 130, "/src", ""), prompt, promptEvent(7))
	check(t, w.only(t), ByAgent, "sleep 300", status(130), "/src")
}

func TestAHumansCommandIsNotTakenForTheAgents(t *testing.T) {
	// The human runs a long command; a REPL's wrapper starts meanwhile in
	// an inner shell without hooks: its START belongs to no line of ours.
	w := newHistoryWorld()
	w.h.Runs(callID, "python3")
	w.feed(prompt, promptEvent(7), "bash\r\n", commandLineEvent(7, "bash"), "inner$ ")
	w.h.Typed([]byte(" . '/rt/" + string(callID) + ".repl.sh'\r"))
	w.feed(markers.Start(callID), ">>> ")
	es := w.h.Entries(10)
	if len(es) != 2 || es[0].Command != "bash" || es[0].Who != ByUser || es[1].Command != "python3" || es[1].Who != ByAgent || !es[0].Running || !es[1].Running {
		t.Fatalf("want the human's bash and, inside it, the agent's python3, both running; got %+v", es)
	}
	if out := w.output(t, 2); out != ">>> " {
		t.Fatalf("output goes to the innermost command: %q", out)
	}
	// The inner shell goes; bash finishes: what ran inside it ends too.
	w.feed(finishedEvent(7, 0, "/", ""))
	es = w.h.Entries(10)
	if es[0].Running || es[1].Running || *es[0].Status != 0 || es[1].Status != nil {
		t.Fatalf("want both ended, the inner one without a status; got %+v", es)
	}
}

func TestARunningCommandIsInTheHistory(t *testing.T) {
	w := newHistoryWorld().feed(prompt, promptEvent(7), "make\r\n", commandLineEvent(7, "make"), "cc -o x x.c\r\n")
	e := w.only(t)
	if !e.Running || e.Status != nil || e.End != nil || e.Command != "make" || e.DurationMS <= 0 {
		t.Fatalf("want make running, got %+v", e)
	}
	if w.h.Running() == nil || w.output(t, 0) != "cc -o x x.c\n" {
		t.Fatalf("the output so far of the running command: %q", w.output(t, 0))
	}
	// A shell that never says FINISHED (older hooks): the next prompt
	// ends the command, with no status.
	w.feed("$ ", promptEvent(7))
	if e := w.only(t); e.Running || e.Status != nil {
		t.Fatalf("want make ended without a status, got %+v", e)
	}
}

func TestAnEmptyLineIsNoCommand(t *testing.T) {
	w := newHistoryWorld().feed("$ ", promptEvent(7), "\r\n", "\x1b]6973;ptybridge;F;7;0\a$ ", promptEvent(7),
		"  \r\n", "\x1b]6973;ptybridge;F;7;0\a$ ", promptEvent(7))
	if es := w.h.Entries(10); len(es) != 0 {
		t.Fatalf("want no entry, got %+v", es)
	}
}

func TestTheHistoryKeepsTheLast100Commands(t *testing.T) {
	w := newHistoryWorld()
	for i := 1; i <= 150; i++ {
		w.feed(promptEvent(7), fmt.Sprintf("echo %d\r\n", i), commandLineEvent(7, fmt.Sprintf("echo %d", i)),
			fmt.Sprintf("%d\r\n", i), finishedEvent(7, 0, "/", ""))
	}
	es := w.h.Entries(1000)
	if len(es) != 100 || es[0].ID != 51 || es[99].ID != 150 || es[99].Command != "echo 150" {
		t.Fatalf("want ids 51 to 150, got %d entries from %d to %d", len(es), es[0].ID, es[len(es)-1].ID)
	}
	if es := w.h.Entries(3); len(es) != 3 || es[0].ID != 148 {
		t.Fatalf("want the last 3, oldest first, got %+v", es)
	}
	if w.h.Find(50) != nil || w.h.Find(51) == nil {
		t.Fatal("a command that left the history must be unknown")
	}
}

func TestALongOutputKeepsItsHeadAndTailWithANote(t *testing.T) {
	var all bytes.Buffer
	for i := 1; all.Len() < 3<<20; i++ {
		fmt.Fprintf(&all, "line %d\r\n", i)
	}
	w := newHistoryWorld().feed(promptEvent(7), "seq\r\n", commandLineEvent(7, "seq"))
	// In chunks of every size, as the pane's output comes.
	for data, n := all.Bytes(), 1; len(data) > 0; n = n*7%65521 + 1 {
		k := min(n, len(data))
		w.feed(string(data[:k]))
		data = data[k:]
	}
	w.feed(finishedEvent(7, 0, "/", ""))
	e := w.only(t)
	// The history keeps the output with the terminal's line ends undone.
	want := strings.ReplaceAll(all.String(), "\r\n", "\n")
	if e.OutputBytes != int64(len(want)) {
		t.Fatalf("output bytes: got %d, want %d", e.OutputBytes, len(want))
	}
	out := w.output(t, e.ID)
	head, rest, ok := strings.Cut(out, "[ptybridge: ")
	note, tail, ok2 := strings.Cut(rest, "\n")
	if !ok || !ok2 {
		t.Fatalf("no note in the output (%d bytes)", len(out))
	}
	var left int64
	if _, err := fmt.Sscanf(note, "%d bytes of output left out here]", &left); err != nil {
		t.Fatalf("note %q: %v", note, err)
	}
	if len(head)+len(tail) > HistoryBound || len(head) < HistoryHead-100 || len(tail) < HistoryBound-HistoryHead-100 {
		t.Fatalf("kept %d + %d bytes", len(head), len(tail))
	}
	if !strings.HasPrefix(want, head) || !strings.HasSuffix(want, tail) || !strings.HasPrefix(tail, "line ") || !strings.HasSuffix(head, "\n") {
		t.Fatalf("head and tail must be whole lines of the output's start and end")
	}
	if int64(len(head))+left+int64(len(tail)) != e.OutputBytes || e.OutputLeftOut <= 0 {
		t.Fatalf("%d + %d left out + %d != %d", len(head), left, len(tail), e.OutputBytes)
	}
}

func TestAShortOutputIsKeptWhole(t *testing.T) {
	for _, size := range []int{0, 1, HistoryHead, HistoryHead + 1, HistoryBound} {
		o := NewBuffer(HistoryBound, HistoryHead)
		data := bytes.Repeat([]byte("0123456789\n"), size/11+1)[:size]
		o.Write(data[:size/2])
		o.Write(data[size/2:])
		if got := o.Render(); !bytes.Equal(got, data) || o.Dropped() != 0 {
			t.Fatalf("%d bytes: kept %d, left out %d", size, len(got), o.Dropped())
		}
	}
}

func TestAMultiLineCommandIsOneCommand(t *testing.T) {
	p := promptEvent
	// zsh draws a PROMPT event at its continuation prompt too; its
	// FINISHED event for the line that installed the hooks (with the
	// directory) tells the history that its COMMAND events name lines.
	w := newHistoryWorld().feed(finishedEvent(7, 0, "/srv", ""), "$ ", p(7), "echo 'a\r\n", "quote> ", p(7), "b'\r\n",
		commandLineEvent(7, "echo 'a\nb'"), "a\r\nb\r\n", finishedEvent(7, 0, "/srv", ""), "$ ", p(7))
	check(t, w.only(t), ByUser, "echo 'a\nb'", status(0), "/srv")
	if out := w.output(t, 0); out != "a\nb\n" {
		t.Fatalf("output %q", out)
	}
	// dash: the line is the first one, as echoed; the rest is output.
	w = newHistoryWorld().feed("$ ", p(7), "for i in 1 2; do\r\n", "> echo $i; done\r\n1\r\n2\r\n", "\x1b]6973;ptybridge;F;7;0\a$ ", p(7))
	check(t, w.only(t), ByUser, "for i in 1 2; do", status(0), "/proc-cwd-of-7")
}

func TestAnAgentsCommandKeepsTheStderrTheTerminalShowed(t *testing.T) {
	source := " . '/rt/" + string(callID) + ".sh'"
	w := newHistoryWorld()
	w.h.Runs(callID, "make")
	w.h.Typed([]byte(source + "\r"))
	w.feed(finishedEvent(7, 0, "/src", ""), prompt, promptEvent(7), source+"\r\n", commandLineEvent(7, source), "[agent] $ make\r\n", markers.Start(callID),
		"out\r\n", string(markers.AppendStderrFrame(nil, callID, []byte("warning: x\r\n"))), markers.End(callID, 0),
		finishedEvent(7, 0, "/src", ""), prompt, promptEvent(7))
	check(t, w.only(t), ByAgent, "make", status(0), "/src")
	if out := w.output(t, 1); out != "out\nwarning: x\n" {
		t.Fatalf("want stdout and stderr as the terminal showed them, without markers: %q", out)
	}
}

func (h *history) Running() *record {
	if len(h.open) == 0 {
		return nil
	}
	return h.open[len(h.open)-1]
}

// A command's directory is where it started: cd ~/proj && make, typed at ~, ran at ~.
func TestTheDirectoryIsWhereTheCommandStarted(t *testing.T) {
	w := newHistoryWorld().feed(finishedEvent(7, 0, "/home/alice", ""), prompt, promptEvent(7),
		"cd /srv/proj && make\r\n", commandLineEvent(7, "cd /srv/proj && make"), "built\r\n",
		finishedEvent(7, 0, "/srv/proj", ""), prompt, promptEvent(7))
	check(t, w.only(t), ByUser, "cd /srv/proj && make", status(0), "/home/alice")
}
