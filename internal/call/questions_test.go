package call

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ptybridge/ptybridge/internal/cleantext"
)

// fakeQuestions is a pane as a look sees it; during tells what happens
// while the look reads the kernel, or while it asks tmux for the cursor
// line. The cursor line is question, after the lines of early, one a
// capture.
type fakeQuestions struct {
	waits, duringLook func() bool
	early             []string
	question          string
	fullScreen        bool // tmux shows the alternate screen, which the stream has not brought yet
	duringAsk         func()
}

func (f *fakeQuestions) waitsForHuman() bool {
	if f.duringLook != nil {
		return f.duringLook()
	}
	return f.waits()
}

func (f *fakeQuestions) asks() (string, bool) {
	if f.duringAsk != nil {
		f.duringAsk()
	}
	if len(f.early) > 0 {
		q := f.early[0]
		f.early = f.early[1:]
		return q, false
	}
	return f.question, f.fullScreen
}

// lookingCall is a call whose command has started, in clean text, looked
// at through f; stdout and stderr are what it printed.
func lookingCall(f *fakeQuestions) (q *questions, stdout, stderr *bytes.Buffer) {
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	c := &Call{Req: Request{Stderr: stderr, Notes: stderr}, clean: cleantext.NewWriter(stdout), started: make(chan struct{})}
	q = &questions{c: c, errs: &stderrCopy{}, waits: f.waitsForHuman, asks: f.asks}
	close(c.started)
	return q, stdout, stderr
}

// seqOutput is what the stream has brought of seq 1 300000 so far: the
// last line unfinished, as a read of the stream may cut it.
const seqOutput = "1\n2\n12"

// The stream of a large output lags far behind the shell: by the time a
// look reads /proc, the command can be over and the shell back at its
// prompt, a line editor that waits for keys. The wrapper's token, which
// the shell waits to have been seen before it goes on, came during the
// look: the look saw the shell, not the command.
func TestALookThatFindsTheShellAtItsNextPromptIsNoQuestion(t *testing.T) {
	var c *questions
	q := &fakeQuestions{question: "root@vm:/tmp/ptbb73795939#", duringLook: func() bool {
		c.errs.over.Store(true) // the token comes, the shell prints END and its prompt
		return true             // and waits at it, in its line editor
	}}
	c, stdout, stderr := lookingCall(q)
	c.c.clean.Write([]byte(seqOutput))
	if c.c.waiting(c.question()) {
		t.Error("a look = true for the shell at its next prompt")
	}
	c.c.clean.Write([]byte("34\n3\n"))
	c.c.clean.Close()
	if stderr.Len() > 0 {
		t.Errorf("a note for the shell's prompt: %q", stderr)
	}
	if want := "1\n2\n1234\n3\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
}

// The question is asked of tmux after the look: the command can end
// meanwhile, and the cursor line be the shell's next prompt.
func TestACommandThatEndsWhileTheQuestionIsReadIsNoQuestion(t *testing.T) {
	var c *questions
	q := &fakeQuestions{question: "root@vm:/tmp/ptbb73795939#", waits: func() bool { return true },
		duringAsk: func() { c.errs.over.Store(true) }}
	c, _, stderr := lookingCall(q)
	if c.c.waiting(c.question()) {
		t.Error("a look = true for a command that ended")
	}
	if stderr.Len() > 0 {
		t.Errorf("a note for a command that ended: %q", stderr)
	}
}

// tmux draws a full-screen program's screen before the stream brings its switch to the
// alternate screen: its "Press a key: " row, on which it waits for the human, is no question.
func TestARowOfAFullScreenProgramTmuxShowsFirstIsNoQuestion(t *testing.T) {
	q := &fakeQuestions{question: "Press a key:", fullScreen: true, waits: func() bool { return true }}
	c, stdout, stderr := lookingCall(q)
	c.c.clean.Write([]byte("before\nPress a key: "))
	if got := c.question(); got != "" || !c.c.fullScreen.Load() {
		t.Errorf("question %q, full screen %v: want none, and the full-screen program known", got, c.c.fullScreen.Load())
	}
	c.c.clean.Close()
	if stderr.Len() > 0 || stdout.String() != "before\nPress a key: " {
		t.Errorf("stdout %q, stderr %q: want the output kept, no note", stdout, stderr)
	}
}

// However a look is fooled, the note it gives takes no output: only a
// pending line that is the question the terminal shows leaves stdout.
func TestANoteThatIsWrongTakesNoOutput(t *testing.T) {
	q := &fakeQuestions{question: "root@vm:/tmp/ptbb73795939#", waits: func() bool { return true }}
	for _, pending := range []string{seqOutput, "1\n2\n"} {
		c, stdout, stderr := lookingCall(q)
		c.c.clean.Write([]byte(pending))
		c.c.waiting(c.question())
		c.c.clean.Write([]byte("34\n3\n"))
		c.c.clean.Close()
		if want := pending + "34\n3\n"; stdout.String() != want {
			t.Errorf("stdout %q, want all of it, %q (stderr %q)", stdout, want, stderr)
		}
	}
}

func TestAQuestionIsTakenOutOfStdout(t *testing.T) {
	cases := []struct {
		name              string
		before, stderr    string   // the output when the look finds the wait
		early             []string // the cursor line before the terminal shows the question
		question          string   // the cursor line
		late              string   // what the stream brings only after the note
		after, wantStdout string
	}{
		{name: "on stdout", before: "Reading...\n[sudo] password for u: ", question: "[sudo] password for u:",
			after: "\ninstalled\n", wantStdout: "Reading...\ninstalled\n"},
		{name: "on stderr", stderr: "Continue? [y/N] ", question: "Continue? [y/N]",
			after: "y\r\nanswer: y\r\n", wantStdout: "answer: y\n"},
		{name: "on stderr, the second", stderr: "First? Second? ", before: "one\n", question: "Second?",
			after: "two\r\none two\r\n", wantStdout: "one\none two\n"},
		{name: "wider than the terminal", before: "out\n" + strings.Repeat("x", 150) + " Go on? ", question: "xxxxxx Go on?",
			after: "y\r\ndone\n", wantStdout: "out\ndone\n"},
		{name: "the stream brings it after the note", before: "out\n", question: "Password:", late: "Password: ",
			after: "\ndone\n", wantStdout: "out\ndone\n"},
		{name: "the terminal shows it after the note", stderr: "Second? ", early: []string{""}, question: "Second?",
			after: "two\r\ndone\r\n", wantStdout: "done\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := &fakeQuestions{early: tc.early, question: tc.question, waits: func() bool { return true }}
			c, stdout, stderr := lookingCall(q)
			c.errs.keepLast([]byte(tc.stderr))
			c.c.clean.Write([]byte(tc.before))
			if !c.c.waiting(c.question()) {
				t.Fatal("a look = false")
			}
			if tc.late != "" || len(tc.early) > 0 {
				c.c.clean.Write([]byte(tc.late))
				c.c.waiting(c.question()) // the next look
			}
			c.c.clean.Write([]byte(tc.after))
			c.c.clean.Close()
			if stdout.String() != tc.wantStdout {
				t.Errorf("stdout %q, want %q", stdout, tc.wantStdout)
			}
			if want := `ptysend: the terminal asks: "` + tc.question + `"`; strings.Count(stderr.String(), want) != 1 {
				t.Errorf("want one note %s, got %q", want, stderr)
			}
		})
	}
}

func TestStderrsLastLineKeepsTheEndOfALongLine(t *testing.T) {
	s := &stderrCopy{}
	s.keepLast([]byte("warning\nCont"))
	s.keepLast([]byte("inue? "))
	if got := s.lastLine(); got != "Continue? " {
		t.Fatalf("lastLine = %q", got)
	}
	s.keepLast([]byte(strings.Repeat("a", maxLastLine) + "Go on? "))
	if got := s.lastLine(); len(got) != maxLastLine || !strings.HasSuffix(got, "aGo on? ") {
		t.Fatalf("lastLine = %q...(%d bytes)", got[:min(len(got), 20)], len(got))
	}
	s.keepLast([]byte("y\n"))
	if got := s.lastLine(); got != "" {
		t.Fatalf("lastLine after a line break = %q", got)
	}
}
