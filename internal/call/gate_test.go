package call

import (
	"strings"
	"testing"
	"time"
)

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

func TestTheGateDropsOnlyTheEchoesOfACommandThatFinished(t *testing.T) {
	var out strings.Builder
	g := &gate{w: &out}
	g.hold()
	g.Write([]byte("working\n^Ccleaned up\n"))
	g.release(true)
	if out.String() != "working\ncleaned up\n" {
		t.Fatalf("got %q", out.String())
	}
}
