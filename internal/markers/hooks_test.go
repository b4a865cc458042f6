package markers_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// The fish hooks, installed twice in a fish whose prompts show the last
// status: one handler, one event per prompt, the prompts' text and status
// as the human's own functions print them, and a prompt the human
// redefines is wrapped again before it is drawn.
func TestFishHooksWrapThePromptsOnce(t *testing.T) {
	dir := t.TempDir()
	hooks := filepath.Join(dir, "hooks.fish")
	if err := os.WriteFile(hooks, []byte(markers.Integration("fish", dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `echo $fish_pid
function fish_prompt; echo -n "left $status> "; end
function fish_right_prompt; echo -n "right $pipestatus"; end
source $argv[1]; source $argv[1]
emit fish_prompt; emit fish_prompt
functions --handlers-type generic | string match -e __ptybridge_preexec | count
false; fish_prompt; echo
true | false; fish_right_prompt; echo
function fish_prompt; echo -n "redefined> "; end
emit fish_prompt
fish_prompt; echo
`
	out, err := exec.Command("fish", "--no-config", "-c", script, hooks).CombinedOutput()
	if err != nil {
		t.Fatalf("fish: %v\n%s", err, out)
	}
	lines := strings.Split(string(out), "\n")
	if len(lines) != 6 {
		t.Fatalf("want 6 lines, got %q", out)
	}
	pid, err := strconv.Atoi(lines[0])
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{
		"1",
		"left 1> " + markers.PromptEvent(pid),
		markers.OwnEvent(pid) + "right 0 1" + markers.OwnEndEvent(pid),
		"redefined> " + markers.PromptEvent(pid),
	} {
		if got := lines[i+1]; got != want {
			t.Errorf("line %d: want %q, got %q", i+1, want, got)
		}
	}
}

// The hooks' events, as each shell prints them from its hook functions
// (run here by hand, in a directory whose name needs encoding): the
// command line where the shell gives it, the status, the directory, and
// the status left as it was for what runs after the hook.
func TestHooksReportTheLineTheStatusAndTheDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a;b%c d")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		shell  string
		argv   []string
		script string
		want   []markers.Event
	}{
		{"bash", []string{"bash", "--norc", "--noprofile", "-c"},
			`. "$1"; cd "$2"; (exit 3); __ptybridge_done; echo "status $?"`,
			[]markers.Event{{Kind: 'F', Status: 3, HasStatus: true, Dir: dir}}},
		{"zsh", []string{"zsh", "-f", "-c"},
			`setopt ksh_arrays no_unset sh_word_split; source "$1"; cd "$2"; __ptybridge_preexec $'make\n\tmake "install" 100%'; (exit 3); __ptybridge_precmd; echo "status $?"`,
			[]markers.Event{{Kind: 'C', Line: "make\n\tmake \"install\" 100%"}, {Kind: 'F', Status: 3, HasStatus: true, Dir: dir}}},
		{"fish", []string{"fish", "--no-config", "-c"},
			`source $argv[1]; cd $argv[2]; emit fish_preexec (printf 'make\n\tmake "install" 100%%' | string collect); sh -c 'exit 3'; emit fish_postexec; echo "status 3"`,
			[]markers.Event{{Kind: 'C', Line: "make\n\tmake \"install\" 100%"}, {Kind: 'F', Status: 3, HasStatus: true, Dir: dir}}},
	} {
		t.Run(c.shell, func(t *testing.T) {
			hooks := filepath.Join(t.TempDir(), "hooks")
			if err := os.WriteFile(hooks, []byte(markers.Integration(c.shell, "/run/x")), 0o600); err != nil {
				t.Fatal(err)
			}
			argv := append(append(c.argv[1:], c.script), c.shell, hooks, dir)
			if c.shell == "fish" {
				argv = append(c.argv[1:], c.script, hooks, dir)
			}
			out, err := exec.Command(c.argv[0], argv...).CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%q", c.shell, err, out)
			}
			var rec recorder
			tr := markers.Tracker{Sink: &rec}
			tr.Write(out)
			if got := strings.TrimSpace(string(rec.out)); got != "status 3" {
				t.Errorf("what ran after the hook saw %q, want status 3", got)
			}
			if len(rec.events) != len(c.want) {
				t.Fatalf("want %d events, got %+v in %q", len(c.want), rec.events, out)
			}
			for i, e := range rec.events {
				if e.PID <= 0 {
					t.Errorf("event %+v has no pid", e)
				}
				e.PID = 0
				if e != c.want[i] {
					t.Errorf("event %d: want %+v, got %+v", i, c.want[i], e)
				}
			}
		})
	}
}

// The POSIX shells' hook is PS1 only: the FINISHED event before the
// human's prompt, with $? for the shell to expand, and PROMPT after it.
func TestTheDashHookFramesThePromptWithEvents(t *testing.T) {
	hook := markers.Integration("dash", "/run/x")
	// Installed twice; then the prompt as the shell would expand it.
	script := "PS1='[human] '\n" + hook + hook + `(exit 4); eval "printf '%s' \"$PS1\""`
	out, err := exec.Command("dash", "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("dash: %v\n%q", err, out)
	}
	var rec recorder
	tr := markers.Tracker{Sink: &rec}
	tr.Write(out)
	if string(rec.out) != "[human] " || len(rec.events) != 2 || rec.events[0].Kind != 'F' || rec.events[0].Status != 4 || rec.events[1].Kind != 'P' {
		t.Fatalf("want F (status 4), the human's prompt, P; got %q and %+v", rec.out, rec.events)
	}
}

// recorder is a Tracker's sink that keeps what it hears.
type recorder struct {
	out    []byte
	events []markers.Event
}

func (r *recorder) Bytes(b []byte)        { r.out = append(r.out, b...) }
func (r *recorder) Event(e markers.Event) { r.events = append(r.events, e) }
