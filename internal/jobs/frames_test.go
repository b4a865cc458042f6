package jobs

import (
	"bytes"
	"testing"

	"github.com/ptybridge/ptybridge/internal/markers"
)

func TestFrameSplitterTakesTheFramesOutWhereverTheStreamIsCut(t *testing.T) {
	id := markers.ID("0123456789abcdef")
	other := markers.ID("fedcba9876543210")
	open, _ := frameMarkers(id)
	stream := "out1\r\n" + string(markers.AppendStderrFrame(nil, id, []byte("err1\r\nerr2"))) + "out2" +
		string(markers.AppendStderrFrame(nil, other, []byte("not ours"))) + string(markers.AppendStderrFrame(nil, id, []byte("\r\n"))) +
		string(open) + "no end: output"
	wantOut := "out1\r\nout2" + string(markers.AppendStderrFrame(nil, other, []byte("not ours"))) + string(open) + "no end: output"
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
	open, _ := frameMarkers(id)
	var out, errb bytes.Buffer
	f := newFrameSplitter(id, &out, &errb)
	long := bytes.Repeat([]byte("x"), maxFrame+10)
	f.Write(append(open, long...))
	if out.Len() != len(open)+len(long) || errb.Len() != 0 {
		t.Fatalf("out %d bytes, err %q", out.Len(), errb.String())
	}
}
