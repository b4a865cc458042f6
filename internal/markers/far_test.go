package markers_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ptybridge/ptybridge/internal/markers"
)

func TestParseProbeAnswer(t *testing.T) {
	k := func(b, z, f string) string { return "\x1b]6973;ptybridge;K;" + b + ";" + z + ";" + f + "\a" }
	cases := []struct {
		name   string
		stream string
		want   markers.FarKind
		found  bool
		ok     bool
	}{
		{"bash", "echo...\r\n" + k("5.2.15(1)-release", "", "") + "$ ", markers.FarBash, true, true},
		{"bash 3.2 runs the POSIX wrapper", k("3.2.57(1)-release", "", ""), markers.FarSh, true, true},
		{"bash 4.4", k("4.4.20(1)-release", "", ""), markers.FarBash, true, true},
		{"zsh", k("", "5.9", ""), markers.FarZsh, true, true},
		{"fish", k("", "", "3.6.0"), markers.FarFish, true, true},
		{"dash: no version variable", k("", "", ""), markers.FarSh, true, true},
		{"not yet whole", "\x1b]6973;ptybridge;K;5.2", "", false, false},
		{"nothing", "tcsh: BASH_VERSION: Undefined variable.\r\n> ", "", false, false},
		{"the variables' names printed literally", k("$BASH_VERSION", "$ZSH_VERSION", "$FISH_VERSION"), "", true, false},
		{"two versions at once", k("5.2", "5.9", ""), "", true, false},
		{"the probe's echo is no answer", markers.Probe(1), "", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kind, found, ok := markers.ParseProbeAnswer([]byte(c.stream))
			if kind != c.want || found != c.found || ok != c.ok {
				t.Fatalf("want (%q, %v, %v), got (%q, %v, %v)", c.want, c.found, c.ok, kind, found, ok)
			}
		})
	}
}

func TestParseInfo(t *testing.T) {
	stream := "x\x1b]6973;ptybridge;I;" + string(ourID) + ";4242;deploy;web1.example;x\ay"
	info, ok := markers.ParseInfo([]byte(stream), ourID)
	if !ok || info.PID != 4242 || info.User != "deploy" || info.Host != "web1.example;x" {
		t.Fatalf("got %+v, %v", info, ok)
	}
	if _, ok := markers.ParseInfo([]byte(stream), otherID); ok {
		t.Fatal("another call's INFO was taken")
	}
}

func TestProbeAndLoadersAreOneLineWithoutMarkers(t *testing.T) {
	lines := []string{markers.Probe(3)}
	for _, k := range []markers.FarKind{markers.FarBash, markers.FarZsh, markers.FarFish, markers.FarSh} {
		lines = append(lines, markers.FarLoader(k, ourID, false), markers.FarLoader(k, ourID, true))
	}
	for _, l := range lines {
		if strings.ContainsAny(l, "\n\r\x1b\a") || !strings.HasPrefix(l, " ") {
			t.Errorf("a typed line must be one line with a leading space and no escape: %q", l)
		}
		if len(l) > 400 {
			t.Errorf("a typed line is long (%d): %q", len(l), l)
		}
	}
}

func TestPayloadLines(t *testing.T) {
	data := bytes.Repeat([]byte("any\x00bytes\x03\x04\n"), 100)
	typed := markers.PayloadLines(data)
	if !strings.HasSuffix(typed, "\n\x04") {
		t.Fatalf("must end with Ctrl-D on an empty line: %q", typed[len(typed)-5:])
	}
	var enc strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(typed, "\n\x04"), "\n") {
		if len(l) == 0 || len(l) > 76 {
			t.Fatalf("line of %d characters", len(l))
		}
		enc.WriteString(l)
	}
	got, err := base64.StdEncoding.DecodeString(enc.String())
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("decoding failed: %v", err)
	}
	if markers.PayloadLines(nil) != "\x04" {
		t.Fatal("empty data is Ctrl-D alone")
	}
}

func TestFarScriptIsOneBlockWithoutMarkers(t *testing.T) {
	for _, k := range []markers.FarKind{markers.FarBash, markers.FarZsh, markers.FarFish, markers.FarSh} {
		for _, first := range []bool{false, true} {
			s := markers.FarScript(markers.FarJob{ID: ourID, Command: "echo hi >&2", Kind: k, First: first, Stdin: true})
			if strings.Contains(s, "\x1b") || strings.Contains(s, "\a") {
				t.Errorf("%s: the script holds a literal escape: a traced shell would print a marker", k)
			}
			open, end := "{\n", "}\n"
			if k == markers.FarFish {
				open, end = "begin\n", "end\n"
			}
			if !strings.HasPrefix(s, open) || !strings.HasSuffix(s, end) {
				t.Errorf("%s: not one block", k)
			}
			if first != strings.Contains(s, "__ptybridge_l()") && first != strings.Contains(s, "function __ptybridge_l\n") {
				t.Errorf("%s first=%v: the loader function goes with the hooks only", k, first)
			}
		}
	}
}

// TestEscapedLinesDecodeInBashAndZsh runs the loader's decoding in the
// real shells: every byte comes back.
func TestEscapedLinesDecodeInBashAndZsh(t *testing.T) {
	var all []byte
	for c := range 256 {
		if c != 0 { // shell variables cannot hold NUL
			all = append(all, byte(c))
		}
	}
	text := "cd /tmp && echo 'it''s' \"$HOME\" \\ . ü\ttab\nline two\r\n" + string(all) + strings.Repeat("x", 300)
	typed := markers.EscapedLines(text)
	for _, l := range strings.Split(typed, "\n") {
		if len(l) > 77 {
			t.Fatalf("a line of %d characters", len(l))
		}
	}
	if strings.Count(typed, ".") != 1 || !strings.HasSuffix(typed, ".") {
		t.Fatal("the only '.' must be the last byte")
	}
	decode := `IFS= read -r -d . p; printf -v w '%b' "${p//$'\n'/}"; printf '%s' "$w"`
	for _, sh := range [][]string{{"bash", "--norc", "--noprofile", "-c", decode}, {"zsh", "-f", "-c", decode}} {
		cmd := exec.Command(sh[0], sh[1:]...)
		cmd.Stdin = strings.NewReader(typed)
		cmd.Env = append(os.Environ(), "LC_ALL=C")
		out, err := cmd.Output()
		if err != nil || string(out) != text {
			t.Errorf("%s: %v: decoded %d bytes of %d", sh[0], err, len(out), len(text))
		}
	}
}
