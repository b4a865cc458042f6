package markers_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ptybridge/ptybridge/internal/markers"
)

var update = flag.Bool("update", false, "rewrite the golden files of TestGenerated* from the code")

// golden is a set of named texts, kept together in one file of testdata:
// the shell code and markers the package generates, pinned byte for byte.
// The files were first written by the code from before the shell code
// moved to shell/: a change to them is a change to what the shells run.
type golden struct {
	names []string
	texts map[string]string
}

func (g *golden) add(name, text string) {
	if g.texts == nil {
		g.texts = map[string]string{}
	}
	if _, dup := g.texts[name]; dup {
		panic("duplicate golden case " + name)
	}
	g.names = append(g.names, name)
	g.texts[name] = text
}

const goldenSep = "\n#### golden: "

func (g *golden) String() string {
	var b strings.Builder
	for _, n := range g.names {
		b.WriteString(goldenSep + n + "\n" + g.texts[n])
	}
	return b.String()
}

// check compares g with testdata/file, or rewrites the file with -update.
func (g *golden) check(t *testing.T, file string) {
	t.Helper()
	path := filepath.Join("testdata", file)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(g.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(raw) == g.String() {
		return
	}
	want := map[string]string{}
	for _, sec := range strings.Split(string(raw), goldenSep)[1:] {
		name, text, _ := strings.Cut(sec, "\n")
		want[name] = text
	}
	for _, n := range g.names {
		if w, ok := want[n]; !ok {
			t.Errorf("%s: no golden text for %q", file, n)
		} else if w != g.texts[n] {
			t.Errorf("%s: %q differs:\n got %q\nwant %q", file, n, g.texts[n], w)
		}
	}
	if len(want) != len(g.names) {
		t.Errorf("%s: %d golden texts, %d generated", file, len(want), len(g.names))
	}
}

// commands are agent commands that exercise the quoting and the
// [agent] line.
var commands = []string{
	"echo hi",
	"-n x",
	"printf '%s\\n' \"it's\"\n  echo two\\",
	"a\\b\x01\x1b\x7f ünï ' \" $HOME `x` {}",
	strings.Repeat("0123456789", 20),
}

func TestGeneratedIntegration(t *testing.T) {
	var g golden
	for _, dir := range []string{"/run/user/1000/ptybridge", "/tmp/it's a dir"} {
		for _, sh := range []string{"bash", "-bash", "/bin/zsh", "fish", "-fish", "sh", "dash", "ksh", "ksh93", "mksh", "ash", "busybox", "tcsh", ""} {
			g.add(fmt.Sprintf("Integration(%q, %q)", sh, dir), markers.Integration(sh, dir))
		}
	}
	g.check(t, "integration.golden")
}

func TestGeneratedScript(t *testing.T) {
	var g golden
	shells := map[markers.Shell]string{markers.POSIX: "POSIX", markers.Zsh: "Zsh", markers.Fish: "Fish"}
	for _, sh := range []markers.Shell{markers.POSIX, markers.Zsh, markers.Fish} {
		for i, cmd := range commands {
			jobs := map[string]markers.Job{
				"tty":       {ID: "0123456789abcdef", Command: cmd, StderrPath: "/dev/tty"},
				"fifo":      {ID: "0123456789abcdef", Command: cmd, StderrPath: "/run/p/e'rr", AckPath: "/run/p/ack"},
				"tty+stdin": {ID: "fedcba9876543210", Command: cmd, StderrPath: "/dev/tty", StdinPath: "/run/p/in put"},
				"fifo+stdin": {ID: "fedcba9876543210", Command: cmd, StderrPath: "/run/p/err", AckPath: "/run/p/a\\ck",
					StdinPath: "/run/p/in"},
			}
			for _, kind := range []string{"tty", "fifo", "tty+stdin", "fifo+stdin"} {
				g.add(fmt.Sprintf("Script(%s, command %d, %s)", shells[sh], i, kind), markers.Script(sh, jobs[kind]))
			}
		}
		g.add(fmt.Sprintf("SourceLine(%s)", shells[sh]), markers.SourceLine(sh, "/tmp/it's a\\dir/x.sh"))
	}
	g.check(t, "script.golden")
}

func TestGeneratedFarScript(t *testing.T) {
	var g golden
	for _, kind := range []markers.FarKind{markers.FarBash, markers.FarZsh, markers.FarFish, markers.FarSh} {
		for _, stdin := range []string{"tty", "stdin", "empty", "both"} {
			for _, terminal := range []bool{false, true} {
				for _, rows := range []int{0, 3} {
					// The hooks of a first call come before all the rest:
					// a few first calls are enough.
					for _, first := range []bool{false, true} {
						if first && (rows == 0 || terminal && stdin != "tty") {
							continue
						}
						job := markers.FarJob{ID: "0123456789abcdef", Command: commands[2], Kind: kind, First: first,
							Stdin: stdin == "stdin" || stdin == "both", EmptyStdin: stdin == "empty" || stdin == "both", Terminal: terminal, EraseRows: rows}
						g.add(fmt.Sprintf("FarScript(%s, first %v, stdin %s, terminal %v, rows %d)", kind, first, stdin, terminal, rows),
							markers.FarScript(job))
					}
				}
			}
		}
		for i, cmd := range commands {
			job := markers.FarJob{ID: "fedcba9876543210", Command: cmd, Kind: kind, EraseRows: 2}
			g.add(fmt.Sprintf("FarScript(%s, command %d)", kind, i), markers.FarScript(job))
		}
	}
	g.check(t, "farscript.golden")
}

func TestGeneratedFarLines(t *testing.T) {
	var g golden
	for _, rows := range []int{0, 1, 3} {
		g.add(fmt.Sprintf("Probe(%d)", rows), markers.Probe(rows))
	}
	g.add("ProbeLen", fmt.Sprint(markers.ProbeLen()))
	script := "echo 'a.b'\\\n\x04\x7f\tünï\n" + strings.Repeat("x", 100)
	for _, kind := range []markers.FarKind{markers.FarBash, markers.FarZsh, markers.FarFish, markers.FarSh} {
		for _, hooked := range []bool{false, true} {
			name := fmt.Sprintf("(%s, hooked %v)", kind, hooked)
			g.add("FarLoader"+name, markers.FarLoader(kind, "0123456789abcdef", hooked))
			g.add("TypedPayload"+name, markers.TypedPayload(kind, hooked, script))
			g.add("EmptyPayload"+name, markers.EmptyPayload(kind, hooked))
		}
	}
	g.add("EscapedLines", markers.EscapedLines(script))
	g.add("PayloadLines", markers.PayloadLines([]byte(script)))
	g.check(t, "farlines.golden")
}

func TestGeneratedMarkers(t *testing.T) {
	var g golden
	const id markers.ID = "0123456789abcdef"
	g.add("Start", markers.Start(id))
	g.add("End", markers.End(id, 127))
	g.add("Ready", markers.Ready(id))
	g.add("ReadyStdin", markers.ReadyStdin(id))
	g.add("StderrDone", markers.StderrDone(id))
	g.add("AppendStderrFrame", string(markers.AppendStderrFrame([]byte("x"), id, []byte("piece\n"))))
	g.add("PromptEvent", markers.PromptEvent(42))
	g.add("CommandEvent", markers.CommandEvent(42))
	g.add("CommandLineEvent", markers.CommandLineEvent(42, "a;b%c\x1b\x7fü"))
	g.add("FinishedEvent", markers.FinishedEvent(42, 1, "/a;b", "x\ny"))
	g.check(t, "markers.golden")
}
