package platform

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

func TestTheModesOfATerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if !TranslatesNewlines(tty) || EditsLines(tty) || passwordMode(tty) {
		t.Fatal("a new terminal is not cooked")
	}
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		t.Fatal(err)
	}
	if TranslatesNewlines(tty) || !EditsLines(tty) || passwordMode(tty) {
		t.Fatal("a raw terminal is not raw")
	}
	if !TranslatesNewlines(nil) || EditsLines(nil) || passwordMode(nil) {
		t.Fatal("no terminal has a mode")
	}
}

// AskTerminal plays a terminal's side against a real pty: its master answers the query, after keys
// typed before it; everything the input held comes back, and the
// terminal's mode is as it was.
func TestAskTerminalTakesTheInputUpToTheAnswer(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	before, err := unix.IoctlGetTermios(int(tty.Fd()), getTermios)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ptmx.Write([]byte("typed ahead\x1b[?1;2c")); err != nil { // no line break: cooked mode holds it
		t.Fatal(err)
	}
	eventually(t, "the echo of the typed keys", func() bool { return readsBack(ptmx, "typed ahead") })
	terminal := make(chan error, 1)
	go func() { // the terminal: the query comes, the answer goes
		buf := make([]byte, 64)
		var got []byte
		for !strings.Contains(string(got), "\x1b[5n") {
			n, err := ptmx.Read(buf)
			if err != nil {
				terminal <- err
				return
			}
			got = append(got, buf[:n]...)
		}
		_, err := ptmx.Write([]byte("\x1b[0n"))
		terminal <- err
	}()
	giveBack := func(in []byte) int { // as the relay would, through the terminal
		if err := <-terminal; err != nil {
			t.Error(err)
		}
		ptmx.Write([]byte("typed ahead"))
		return len("typed ahead")
	}
	in, err := AskTerminal(tty.Name(), "\x1b[5n", func(in []byte) bool { return strings.HasSuffix(string(in), "\x1b[0n") }, 10*time.Second, giveBack)
	if err != nil || string(in) != "typed ahead\x1b[?1;2c\x1b[0n" {
		t.Fatalf("AskTerminal = %q, %v", in, err)
	}
	if n := Unread(tty); n != len("typed ahead") {
		t.Fatalf("%d bytes wait in the input, want the keys given back", n)
	}
	after, _ := unix.IoctlGetTermios(int(tty.Fd()), getTermios)
	if after.Lflag != before.Lflag || after.Cc != before.Cc {
		t.Fatalf("the terminal's mode changed: %+v, was %+v", after, before)
	}
}

// readsBack reads ptmx once and reports whether it showed s.
func readsBack(ptmx *os.File, s string) bool {
	buf := make([]byte, 256)
	n, _ := ptmx.Read(buf)
	return strings.Contains(string(buf[:n]), s)
}
