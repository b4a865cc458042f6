package modes

import (
	"strings"
	"testing"
)

func TestHelpDescriptionOnlyWhenHelpIsAsked(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"--help"}, true},
		{[]string{"-h"}, true},
		{[]string{"--timeout", "5", "--help"}, true},
		{[]string{"--", "grep", "--help"}, false},
		{[]string{"--", "ls"}, false},
		{[]string{"--screen"}, false},
		{nil, false},
	} {
		if got := helpDescription(c.args) != ""; got != c.want {
			t.Errorf("%q: description given = %v, want %v", c.args, got, c.want)
		}
	}
}

// Every tool of tools.md is a mode's, and every mode's tool is there.
func TestToolsAreTheModes(t *testing.T) {
	named := map[string]bool{}
	for _, m := range All() {
		if name := m.About().Tool; name != "" {
			if tool := ToolNamed(name); tool.Title == "" || len(tool.Description) < 100 {
				t.Errorf("%s: %+v", name, tool)
			}
			named[name] = true
		}
	}
	if sections := strings.Count(tools, "\n## "); sections != len(named) {
		t.Errorf("tools.md has %d tools, the modes name %d", sections, len(named))
	}
}
