package modes

import (
	"reflect"
	"testing"
)

// The read-only modes' command lines read without kong must give the
// flags kong gives; every other command line is kong's.
func TestQuickFlagsAgreeWithKong(t *testing.T) {
	t.Setenv("PTYBRIDGE_SESSION", "from-env")
	for _, args := range [][]string{
		{"--status"}, {"--status", "--json"}, {"--json", "--status"},
		{"--history"}, {"--history=5"}, {"--history", "--json"},
		{"--output"}, {"--output=12"}, {"--output=3", "--raw"}, {"--raw", "--output"},
		{"--status", "--history"}, // two modes: mode() refuses it, as after kong
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
		nil, {"--", "ls"}, {"ls"}, {"--status", "--session", "x"}, {"--session=x", "--status"},
		{"--history="}, {"--status", "--timeout", "5"}, {"--statuses"}, {"--status", "--", "ls"}, {"--help"}, {"--version"},
	} {
		if _, _, ok := quickFlags(args); ok {
			t.Errorf("%q must be left to kong", args)
		}
	}
}
