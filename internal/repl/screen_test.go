package repl

import (
	"reflect"
	"testing"

	"github.com/ptybridge/ptybridge/internal/cleantext"
)

func TestLineScreenShowsWhatTheHumanSees(t *testing.T) {
	cases := []struct {
		name, raw string
		lines     []string
		cursor    string
	}{
		{"plain lines", "a\nb\n>>> ", []string{"a", "b"}, ">>> "},
		{"colours are dropped", "\x1b[33m42\x1b[39m\n", []string{"42"}, ""},
		{"node redraws its prompt", "\x1b[1G\x1b[0J> \x1b[3G", nil, "> "},
		{"node's continuation line", "\x1b[1G\x1b[0J... \x1b[5G\treturn x\r\n", []string{"... \treturn x"}, ""},
		{"carriage return overwrites", "10%\r50%\r100%\n", []string{"100%"}, ""},
		{"erase to end of line", "abcdef\x1b[3G\x1b[K\n", []string{"ab"}, ""},
		{"OSC markers are invisible", "x\x1b]6973;ptybridge;S;0123\ay\n", []string{"xy"}, ""},
		{"OSC ended by ST", "x\x1b]0;title\x1b\\y\n", []string{"xy"}, ""},
		{"bracketed paste mode switch", "\x1b[?2004l\rhi\n", []string{"hi"}, ""},
		{"backspace", "ab\bc\n", []string{"ac"}, ""},
		{"echoed ^C stays text", "^CKeyboardInterrupt\n", []string{"^CKeyboardInterrupt"}, ""},
		{"utf-8", "漢字 é\n", []string{"漢字 é"}, ""},
		{"trailing blanks beyond the cursor go", "ab   \r", nil, "ab"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			s := newLineScreen(func(l string) { got = append(got, l) }, cleantext.Unknown)
			// Byte by byte: sequences split across chunks must not matter.
			for i := 0; i < len(c.raw); i++ {
				s.Write([]byte{c.raw[i]})
			}
			if !reflect.DeepEqual(got, c.lines) {
				t.Errorf("lines: want %q, got %q", c.lines, got)
			}
			if line, _ := s.text.Line(); line != c.cursor {
				t.Errorf("cursor line: want %q, got %q", c.cursor, line)
			}
		})
	}
}

func TestLineScreenStartsFromTheCapturedLine(t *testing.T) {
	var got []string
	s := newLineScreen(func(l string) { got = append(got, l) }, cleantext.Unknown)
	s.setLine(">>>", 4, false) // tmux trims the prompt's trailing space; the cursor keeps it
	if line, col := s.text.Line(); line != ">>> " || col != 4 {
		t.Fatalf("got %q at %d", line, col)
	}
	s.Write([]byte("1 + 1\n"))
	if !reflect.DeepEqual(got, []string{">>> 1 + 1"}) {
		t.Fatalf("got %q", got)
	}
}

func TestLineScreenFollowsBracketedPaste(t *testing.T) {
	cases := []struct {
		name string
		from cleantext.Mode
		raw  string
		want cleantext.Mode
	}{
		{"the relay's mode holds", cleantext.Off, ">>> ", cleantext.Off},
		{"a line editor turns it on", cleantext.Off, "\x1b[?2004hsqlite> ", cleantext.On},
		{"and off", cleantext.On, "\x1b[?2004l\r", cleantext.Off},
		{"a reset ends it", cleantext.On, "\x1bc", cleantext.Off},
		{"unknown stays unknown", cleantext.Unknown, "> ", cleantext.Unknown},
		{"half a sequence is unknown", cleantext.Off, "\x1b[?20", cleantext.Unknown},
	}
	for _, c := range cases {
		s := newLineScreen(func(string) {}, c.from)
		for i := 0; i < len(c.raw); i++ {
			s.Write([]byte{c.raw[i]})
		}
		if got := s.text.Paste(s.paste); got != c.want {
			t.Errorf("%s: want %v, got %v", c.name, c.want, got)
		}
	}
}

func TestLineScreenViewIsTheStreamsOwnLine(t *testing.T) {
	s := newLineScreen(func(string) {}, cleantext.Unknown)
	s.setLine(">>> ab", 6, false) // from tmux: not the stream's own
	if _, _, ok := s.view(); ok {
		t.Fatal("a line captured by tmux must not be saved as a view")
	}
	s.Write([]byte("c\n2\n>>> "))
	if cells, col, ok := s.view(); !ok || cells != ">>> " || col != 4 {
		t.Fatalf("after a newline: got %q at %d, %v", cells, col, ok)
	}
	s.Write([]byte("\x1b[3"))
	if _, _, ok := s.view(); ok {
		t.Fatal("not in the middle of an escape sequence")
	}
	s.Write([]byte("Gx\xe6"))
	if _, _, ok := s.view(); ok {
		t.Fatal("not in the middle of a UTF-8 sequence")
	}
	s.Write([]byte("\xbc\xa2"))
	if cells, col, ok := s.view(); !ok || cells != ">>x漢" || col != 4 {
		t.Fatalf("got %q at %d, %v", cells, col, ok)
	}
	r := newLineScreen(func(string) {}, cleantext.Unknown)
	r.setLine(">>> ", 4, true)
	if line, col := r.text.Line(); line != ">>> " || col != 4 {
		t.Fatalf("restored: got %q at %d", line, col)
	}
	if _, _, ok := r.view(); !ok {
		t.Fatal("a restored view is the stream's own")
	}
}
