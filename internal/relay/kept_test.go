package relay

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// What a stopped job keeps of a stream is what its relay kept: restored from what Read(0) gave,
// a Buffer reads the same from any offset.
func TestARestoredBufferReadsAsTheRelaysDid(t *testing.T) {
	const bound, head = 100, 30
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, 99, 100, 101, 130, 250, 1000} {
		buf := NewBuffer(bound, head)
		for pos := 0; pos < size; {
			n := min(size-pos, 1+rng.IntN(60))
			piece := make([]byte, n)
			for i := range piece {
				piece[i] = byte('a' + (pos+i)%26)
			}
			buf.Write(piece)
			pos += n
		}
		kept := restore(buf.Read(0), buf.Total())
		if kept == nil {
			t.Fatalf("size %d: not restored", size)
		}
		for _, since := range []int64{0, 1, 29, 30, 31, 99, 100, int64(size) - 1, int64(size), int64(size) + 5} {
			if want, got := buf.Read(since), kept.Read(since); !slices.EqualFunc(want, got, sameSegment) {
				t.Errorf("size %d, since %d: the relay kept %v, the stopped job %v", size, since, want, got)
			}
		}
	}
}

func sameSegment(x, y Segment) bool { return x.Offset == y.Offset && bytes.Equal(x.Data, y.Data) }

func TestRestoreRefusesWhatNoBufferGave(t *testing.T) {
	for _, segs := range [][]Segment{
		nil,
		{{Offset: 1, Data: []byte("a")}},
		{{Offset: 0, Data: []byte("ab")}, {Offset: 1, Data: []byte("c")}},
		{{Offset: 0, Data: []byte("a")}, {Offset: 5, Data: []byte("b")}, {Offset: 9, Data: []byte("c")}},
	} {
		if restore(segs, 10) != nil {
			t.Errorf("restored %v", segs)
		}
	}
	if restore([]Segment{{Offset: 0, Data: []byte("ab")}}, 3) != nil {
		t.Error("restored 2 bytes of 3")
	}
}
