package look

import (
	"testing"
	"time"
)

func TestCleanOutputDropsWhatTheShellDrewAfterTheCommand(t *testing.T) {
	for _, c := range []struct{ name, raw, want string }{
		{"plain", "a\r\nb\r\n", "a\nb\n"},
		{"colours and a redraw", "\x1b[31mred\x1b[0m\r\n10%\r50%\r100%\r\n", "red\n100%\n"},
		{"zsh's end-of-line mark", "ls: x\r\n\x1b[1m\x1b[7m%\x1b[27m\x1b[1m\x1b[0m" + "          \r \r", "ls: x\n"},
		{"zsh's mark for root, then a precmd's output", "out\r\n\x1b[1m\x1b[7m#\x1b[27m\x1b[1m\x1b[0m   \r \rprecmd-ran\r\n", "out\nprecmd-ran\n"},
		{"a last line that shows nothing", "out\r\n\x1b[K   ", "out\n"},
		{"a last line without newline", "out\r\nno newline", "out\nno newline"},
		{"nothing", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := cleanOutput([]byte(c.raw)); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestCommandLinesShowOnOneLine(t *testing.T) {
	if got := oneLine("for f in *; do\n\techo \"$f\"\x1b\ndone"); got != `for f in *; do\n\techo "$f"\x1b\ndone` {
		t.Fatalf("got %q", got)
	}
}

func TestDurationsForPeople(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "0.0s", 340 * time.Millisecond: "0.3s", 12 * time.Second: "12s",
		125 * time.Second: "2m05s", 3720 * time.Second: "1h02m",
	} {
		if got := duration(d); got != want {
			t.Errorf("%v: got %q, want %q", d, got, want)
		}
	}
}
