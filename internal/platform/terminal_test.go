package platform

import (
	"testing"

	"github.com/creack/pty"
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
