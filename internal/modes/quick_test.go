package modes

import (
	"reflect"
	"strings"
	"testing"
)

// The command lines read without kong (a command, the read-only modes)
// must give the flags kong gives; every other command line is kong's.
func TestQuickFlagsAgreeWithKong(t *testing.T) {
	t.Setenv("PTYBRIDGE_SESSION", "from-env")
	for _, args := range [][]string{
		{"--status"}, {"--status", "--json"}, {"--json", "--status"},
		{"--history"}, {"--history=5"}, {"--history", "--json"},
		{"--output"}, {"--output=12"}, {"--output=3", "--raw"}, {"--raw", "--output"},
		{"--status", "--history"}, // two modes: choose refuses it, as after kong
		{"--", "ls"}, {"--", "echo", "hi"}, {"--"}, {"--", "--status"}, {"--status", "--", "ls"},
		{"--timeout", "60", "--", "make", "test"}, {"--timeout=1.5", "--max-time", "2m", "--raw", "--", "x"},
		{"--wait-free", "5", "--", "ls"}, {"--max-time=0", "--", "ls", "--timeout", "1"},
		{"--status", "--session", "x"}, {"--session=x", "--status"}, {"--session", "x", "--", "ls"},
		{"--session", "web1", "--session", "web1", "--stdin=terminal", "--timeout", "5", "--", "x"}, {"--stdin", "forward", "--", "cat"},
	} {
		quick, quickModes, ok := quickFlags(args)
		if !ok {
			t.Errorf("%q: not read quickly", args)
			continue
		}
		var slow Options
		slowModes := All()
		if !parse(&slow, slowModes, args) {
			t.Fatalf("%q: kong refused it", args)
		}
		if !reflect.DeepEqual(quick, slow) || !reflect.DeepEqual(quickModes, slowModes) {
			t.Errorf("%q:\nquick %+v %+v\nkong  %+v %+v", args, quick, quickModes, slow, slowModes)
		}
	}
	for _, args := range [][]string{
		nil, {"ls"}, {"--session"}, {"--session", "--", "ls"}, {"--session="}, {"--stdin=bogus", "--", "ls"}, {"--stdin=terminal", "--status"},
		{"--history="}, {"--status", "--timeout", "5"}, {"--statuses"}, {"--help"}, {"--version"},
		{"--timeout"}, {"--timeout", "--", "ls"}, {"--timeout", "-1", "--", "ls"}, {"--timeout=", "--", "ls"},
		{"--raw", "ls"},
	} {
		if _, _, ok := quickFlags(args); ok {
			t.Errorf("%q must be left to kong", args)
		}
	}
}

func TestANumberApartFromItsFlagIsToldToFollowTheEquals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--history", "3"}, "use --history=3"},
		{[]string{"--output", "7"}, "use --output=7"},
		{[]string{"--status", "3"}, "not several"},
		{[]string{"--history", "--", "3"}, "not several"},
	} {
		var opts Options
		modes := All()
		if !parse(&opts, modes, c.args) {
			t.Fatalf("%q: kong refused it", c.args)
		}
		if _, err := choose(&opts, modes); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: want an error saying %q, got %v", c.args, c.want, err)
		}
	}
}
