//go:build !linux || portable

package platform

import (
	"fmt"
	"os"
	"testing"
)

// What the portable answers say of programs asleep in a terminal, weaknesses included: they pin
// down what docs/platforms.md promises.
func TestThePortableWaitsForInput(t *testing.T) {
	cases := []struct {
		name                  string
		argv                  []string
		editor                bool // the terminal is non-canonical once it waits
		waits, atPrompt, only bool // WaitsForInput, WaitsAtPrompt, WaitsOnlyForInput
	}{
		{"a builtin read of the terminal", []string{"bash", "--norc", "-c", "read -r x"}, false, false, true, false},
		{"a password prompt (getpass)", []string{"python3", "-c", "import getpass; getpass.getpass('Secret: ')"}, false, true, true, false},
		{"a line editor", []string{"python3", "-c", "import readline; input('> ')"}, true, true, true, true},
		// Weaker than procfs: asleep in a cooked terminal, as a read is.
		{"sleep", []string{"sleep", "60"}, false, false, true, false},
		// Weaker than procfs: an event loop keeps the editor's mode while it awaits a timer.
		{"a line editor beside another thread", []string{"python3", "-c",
			"import readline, threading, time; threading.Thread(target=time.sleep, args=(60,)).start(); input('> ')"},
			true, true, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pid := inTerminal(t, c.argv...).Process.Pid
			tty := OpenTTY(TTYOf(pid))
			if tty == nil {
				t.Fatal("cannot open the terminal")
			}
			defer tty.Close()
			eventually(t, "it to sleep in its terminal's expected mode", func() bool {
				asleep, _, known := sleepingThreads(pid)
				return known && asleep && EditsLines(tty) == c.editor
			})
			// Settled in its mode, it may still turn off the echo (getpass).
			for _, f := range []struct {
				name string
				got  func(int, *os.File) bool
				want bool
			}{{"WaitsForInput", WaitsForInput, c.waits}, {"WaitsAtPrompt", WaitsAtPrompt, c.atPrompt},
				{"WaitsOnlyForInput", WaitsOnlyForInput, c.only}} {
				eventually(t, fmt.Sprintf("%s = %v", f.name, f.want), func() bool { return f.got(pid, tty) == f.want })
			}
		})
	}
}

// A complete line the program has not read: whatever it sleeps in, it is no read of the terminal.
func TestALineLeftUnreadMeansNoWaitForInput(t *testing.T) {
	cmd, ptmx := inTerminalWithMaster(t, "sleep", "60")
	pid := cmd.Process.Pid
	tty := OpenTTY(TTYOf(pid))
	if tty == nil {
		t.Fatal("cannot open the terminal")
	}
	defer tty.Close()
	eventually(t, "sleep to sleep", func() bool { return WaitsAtPrompt(pid, tty) })
	ptmx.Write([]byte("typed ahead\n"))
	eventually(t, "the line in the queue", func() bool { return Unread(tty) > 0 })
	if WaitsAtPrompt(pid, tty) {
		t.Fatal("WaitsAtPrompt with a line left unread")
	}
}

func TestThePortableAtLineEditor(t *testing.T) {
	pid := inTerminal(t, "bash", "--norc", "-i").Process.Pid
	eventually(t, "bash's line editor", func() bool { return AtLineEditor(pid) })
	sleeper := inTerminal(t, "sleep", "60").Process.Pid
	eventually(t, "sleep to sleep", func() bool { asleep, _, _ := sleepingThreads(sleeper); return asleep })
	if AtLineEditor(sleeper) {
		t.Fatal("AtLineEditor of sleep")
	}
}
