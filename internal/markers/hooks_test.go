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
