package call

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestGateReleasesOnlyWhatTheCommandPrinted(t *testing.T) {
	cases := []struct {
		name     string
		before   string
		held     string
		finished bool
		want     string
	}{
		{"shell dropped the line: the prompt after ^C is not output", "out\n", "tail^C\r\n$ ", false, "out\ntail"},
		{"echo off and no END: nothing held is known output", "out\n", "$ ", false, "out\n"},
		{"the command handled ^C and finished", "out\n", "^Ccleaned\n", true, "out\ncleaned\n"},
		{"both interrupt keys echoed before END", "", "^C^\\bye\n", true, "bye\n"},
		{"finished without any echo", "", "bye\n", true, "bye\n"},
		{"the first echo wins", "", `a^\b^Cc`, false, "a"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			g := &gate{w: &out}
			g.Write([]byte(c.before))
			g.hold()
			g.Write([]byte(c.held))
			g.release(c.finished)
			if out.String() != c.want {
				t.Fatalf("want %q, got %q", c.want, out.String())
			}
		})
	}
}

func TestTheGateKeepsWhatCameBeforeTheInterruptsEcho(t *testing.T) {
	var out strings.Builder
	g := &gate{w: &out}
	g.Write([]byte("started\n"))
	g.hold()
	g.Write([]byte("last words\n"))
	go g.Write([]byte("^C\r\n$ prompt"))
	g.awaitEcho(time.Minute)
	g.release(false)
	g.Write([]byte("the shell's next prompt"))
	if out.String() != "started\nlast words\n" {
		t.Fatalf("got %q", out.String())
	}
}
