package cleantext

import "testing"

func TestHasQuery(t *testing.T) {
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"plain text", false},
		{"\x1b[c", true},
		{"\x1b[0c", true},
		{"\x1b[>c", true},
		{"\x1b[=c", true},
		{"\x1b[6n", true},
		{"\x1b[?6n", true},
		{"\x1b[5n", true},
		{"\x1b[>q", true},
		{"\x1b[?2004$p", true},
		{"\x1b]11;?\a", true},
		{"\x1b]4;1;?\x1b\\", true},
		{"\x1bP$qm\x1b\\", true},
		{"random \x8f\x1b[>84;0;0cx", true},
		{"\x1b[31mred\x1b[0m", false},
		{"\x1b[2J\x1b[H", false},
		{"\x1b[?1049h", false},
		{"\x1b]0;title\a", false},
		{"\x1b]11;rgb:0000/0000/0000\a", false},
		{"\x1b[3n", false},
		{"\x1b[", false},
		{"\x1b", false},
	} {
		if got := HasQuery([]byte(c.in)); got != c.want {
			t.Errorf("HasQuery(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestScreenSwitch(t *testing.T) {
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
		{"\x1b[?1049", Off, Off},
	} {
		if got := ScreenSwitch([]byte(c.in), c.from); got != c.to {
			t.Errorf("ScreenSwitch(%q, %s) = %s, want %s", c.in, c.from, got, c.to)
		}
	}
}

func FuzzHasQuery(f *testing.F) {
	for _, s := range []string{"\x1b[c", "\x1b]11;?\a", "text\x1b[6n", "\x1b[?1;2c"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		HasQuery(p) // never panics, whatever the bytes
		ScreenSwitch(p, Off)
	})
}
