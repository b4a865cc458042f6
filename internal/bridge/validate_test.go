package bridge

import (
	"os/exec"
	"testing"
)

func TestANameTmuxKeepsAsItIsIsValid(t *testing.T) {
	for _, name := range []string{"ptybridge-ada", "my bridge; #1", "it's", "a%b"} {
		if err := ValidateName(name); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
	for _, name := range []string{"", "a:b", "a.b", `a\b`, "a$b", `a"b`} {
		if ValidateName(name) == nil {
			t.Errorf("%q must be refused", name)
		}
	}
}

// tmux itself keeps every name ValidateName lets through, and rewrites the ones it refuses for it.
func TestTmuxKeepsTheValidNames(t *testing.T) {
	dir := t.TempDir()
	tm := func(args ...string) (string, error) {
		out, err := exec.Command("tmux", append([]string{"-S", dir + "/s", "-f", "/dev/null"}, args...)...).CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() { tm("kill-server") })
	for _, name := range []string{"my bridge; #1", "it's", "a%b", `a\b`, "a$b", "a.b"} {
		_, err := tm("new-session", "-d", "-s", name, "cat")
		kept := err == nil
		if kept {
			_, err = tm("has-session", "-t", "="+name)
			kept = err == nil
		}
		if valid := ValidateName(name) == nil; valid && !kept {
			t.Errorf("%q is valid but tmux does not keep it", name)
		} else if !valid && kept {
			t.Errorf("%q is refused but tmux keeps it", name)
		}
	}
}
