package cleantext

import "testing"

func TestSequenceKinds(t *testing.T) {
	for _, c := range []struct {
		in   string
		sp   spelling
		n    int
		kind seqKind
		cut  bool
	}{
		{"plain text", raw, 0, notSeq, false},
		{"\x1b[c", raw, 3, query, false},
		{"\x1b[0c", raw, 4, query, false},
		{"\x1b[>c", raw, 4, query, false},
		{"\x1b[=c", raw, 4, query, false},
		{"\x1b[6n", raw, 4, query, false},
		{"\x1b[?6n", raw, 5, query, false},
		{"\x1b[5nrest", raw, 4, query, false},
		{"\x1b[>q", raw, 4, query, false},
		{"\x1b[?2004$p", raw, 9, query, false},
		{"\x1b[?u", raw, 4, query, false},
		{"\x1b[18t", raw, 5, query, false},
		{"\x1b[14;2t", raw, 7, query, false},
		{"\x1b]11;?\a", raw, 7, query, false},
		{"\x1b]4;1;?\x1b\\", raw, 9, query, false},
		{"\x1bP$qm\x1b\\", raw, 7, query, false},
		{"\x1bP+q544e\x1b\\", raw, 10, query, false},
		{"\x1b[?1;2c", raw, 7, answer, false},
		{"\x1b[>84;0;0c", raw, 10, answer, false},
		{"\x1b[0n", raw, 4, answer, false},
		{"\x1b[12;40R", raw, 8, answer, false},
		{"\x1b[8;24;80t", raw, 10, answer, false}, // as output a resize: only echoes are taken from output
		{"^[[8;24;80t", echoed, 11, answer, false},
		{"\x1b]11;rgb:0000/0000/0000\a", raw, 24, answer, false},
		{"\x1bP>|tmux 3.3a\x1b\\", raw, 15, answer, false},
		{"\x1b[?2004;1$y", raw, 11, answer, false},
		{"\x1b[?1u", raw, 5, answer, false},
		{"\x1b[31mred", raw, 5, other, false},
		{"\x1b[2J", raw, 4, other, false},
		{"\x1b[?1049h", raw, 8, other, false},
		{"\x1b[A", raw, 3, other, false}, // an arrow key
		{"\x1b]0;title\a", raw, 10, other, false},
		{"\x1b[3n", raw, 4, other, false},
		{"\x1b[?5n", raw, 5, query, false},
		{"\x1b[", raw, 0, notSeq, true},
		{"\x1b", raw, 0, notSeq, true},
		{"\x1b[>84;0", raw, 0, notSeq, true},
		{"\x1b]11;?", raw, 0, notSeq, true},
		{"\x1b]11;?\x1b", raw, 0, notSeq, true},
		{"\x1b]11;\x01?\a", raw, 0, notSeq, false},
		{"\x1b[\x01c", raw, 0, notSeq, false},
		{"\x1bx", raw, 0, notSeq, false},
		{"^[[?1;2c", echoed, 8, answer, false},
		{"^[[>84;0;0cmore", echoed, 11, answer, false},
		{"^[]11;rgb:1e1e/1e1e/1e1e^G", echoed, 26, answer, false},
		{"^[]11;rgb:1e1e/1e1e/1e1e^[\\", echoed, 27, answer, false},
		{"^[P>|tmux 3.3a^[\\", echoed, 17, answer, false},
		{"^[[A", echoed, 4, other, false},
		{"^", echoed, 0, notSeq, true},
		{"^[", echoed, 0, notSeq, true},
		{"^[]11;rgb:1e1e^", echoed, 0, notSeq, true},
		{"^x", echoed, 0, notSeq, false},
		{"\x1b[?1;2c", echoed, 0, notSeq, false},
	} {
		n, kind, cut := seqAt([]byte(c.in), c.sp)
		if n != c.n || kind != c.kind || cut != c.cut {
			t.Errorf("seqAt(%q, %q) = %d, %d, %v; want %d, %d, %v", c.in, c.sp.esc, n, kind, cut, c.n, c.kind, c.cut)
		}
	}
}

func TestModesFollowTheAlternateScreen(t *testing.T) {
	for _, c := range []struct {
		in       string
		from, to Mode
	}{
		{"plain", Off, Off},
		{"\x1b[?1049h\x1b[Hscreen", Off, On},
		{"screen\x1b[?1049l\r\n", On, Off},
		{"\x1b[?1049hA\x1b[?1049lB", Off, Off},
		{"\x1b[?47h", Off, On},
		{"\x1b[?1;1047h", Off, On},
		{"\x1b[?2004h\x1b[?25l", Off, Off},
		{"\x1b[1049h", Off, Off},
		{"\x1b[?1049", Off, Unknown}, // mid-sequence
	} {
		m := Modes{parser{alt: c.from}}
		if m.Write([]byte(c.in)); m.Alternate() != c.to {
			t.Errorf("from %s, %q switched the alternate screen to %s, want %s", c.from, c.in, m.Alternate(), c.to)
		}
	}
}

func FuzzSequences(f *testing.F) {
	for _, s := range []string{"\x1b[c", "\x1b]11;?\a", "text\x1b[6n", "\x1b[?1;2c", "^[]11;rgb:0/0/0^G", "\x1bP$q\x1b\\"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		for _, sp := range []spelling{raw, echoed} {
			n, kind, cut := seqAt(p, sp)
			if n < 0 || n > len(p) || (n == 0) != (kind == notSeq) || cut && n != 0 {
				t.Fatalf("seqAt(%q, %q) = %d, %d, %v", p, sp.esc, n, kind, cut)
			}
			if cut && len(p) > maxString+8 {
				t.Fatalf("seqAt(%q) holds more than a sequence's bound", p)
			}
		}
		new(Modes).Write(p)
	})
}
