package modes

import "testing"

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
