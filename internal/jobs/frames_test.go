package jobs

import (
	"bytes"
	"testing"

	"github.com/ptybridge/ptybridge/internal/markers"
)

func TestFrameSplitterTakesTheFramesOutWhereverTheStreamIsCut(t *testing.T) {
	id := markers.ID("0123456789abcdef")
	other := markers.ID("fedcba9876543210")
	stream := "out1\r\n" + string(appendFrame(nil, id, []byte("err1\r\nerr2"))) + "out2" +
		string(appendFrame(nil, other, []byte("not ours"))) + string(appendFrame(nil, id, []byte("\r\n"))) +
		frameOpen(id) + "no end: output"
	wantOut := "out1\r\nout2" + string(appendFrame(nil, other, []byte("not ours"))) + frameOpen(id) + "no end: output"
	wantErr := "err1\nerr2\n"
	for cut := 0; cut <= len(stream); cut++ {
		var out, errb bytes.Buffer
		f := newFrameSplitter(id, &out, &errb)
		f.Write([]byte(stream[:cut]))
		f.Write([]byte(stream[cut:]))
		f.Flush()
		if out.String() != wantOut || errb.String() != wantErr {
			t.Fatalf("cut at %d: out %q, err %q", cut, out.String(), errb.String())
		}
	}
}

func TestAnOpeningMarkerWithoutItsEndIsOutputOnceTooFarAway(t *testing.T) {
	id := markers.ID("0123456789abcdef")
	var out, errb bytes.Buffer
	f := newFrameSplitter(id, &out, &errb)
	long := bytes.Repeat([]byte("x"), maxFrame+10)
	f.Write(append([]byte(frameOpen(id)), long...))
	if out.Len() != len(frameOpen(id))+len(long) || errb.Len() != 0 {
		t.Fatalf("out %d bytes, err %q", out.Len(), errb.String())
	}
}
