package relay

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// segs renders segments as "offset:data" for comparison.
func segs(ss []Segment) string {
	var parts []string
	for _, s := range ss {
		parts = append(parts, fmt.Sprintf("%d:%s", s.Offset, s.Data))
	}
	return strings.Join(parts, " ")
}

func TestBufferKeepsEverythingUpToItsBoundThenHeadAndTail(t *testing.T) {
	cases := []struct {
		name   string
		writes []string
		since  int64
		want   string
	}{
		{"nothing", nil, 0, "0:"},
		{"under the bound", []string{"abc", "def"}, 0, "0:abcdef"},
		{"exactly the bound", []string{"0123456789"}, 0, "0:0123456789"},
		{"from an offset", []string{"abc", "def"}, 4, "4:ef"},
		{"an offset past the end", []string{"abc"}, 9, "3:"},
		{"a negative offset", []string{"abc"}, -5, "0:abc"},
		{"one byte over: the middle goes", []string{"0123456789", "a"}, 0, "0:012 4:456789a"},
		{"one big write", []string{"0123456789abcdefghij"}, 0, "0:012 13:defghij"},
		{"many small writes", strings.Split("0123456789abcdefghijklmnopq", ""), 0, "0:012 20:klmnopq"},
		{"since in the head", strings.Split("0123456789abcdefghijklmnopq", ""), 1, "1:12 20:klmnopq"},
		{"since in the dropped middle", strings.Split("0123456789abcdefghijklmnopq", ""), 8, "20:klmnopq"},
		{"since in the tail", strings.Split("0123456789abcdefghijklmnopq", ""), 24, "24:opq"},
		{"since at the end", strings.Split("0123456789abcdefghijklmnopq", ""), 27, "27:"},
		{"writes that wrap the ring", []string{"0123456789", "abcd", "efg", "hijklmn", "o"}, 0, "0:012 18:ijklmno"},
		{"a write bigger than the ring", []string{"0123456789", "abcdefghijklmnopqrstuvwxyz"}, 0, "0:012 29:tuvwxyz"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := NewBuffer(10, 3)
			var all bytes.Buffer
			for _, w := range c.writes {
				b.Write([]byte(w))
				all.WriteString(w)
			}
			if b.Total() != int64(all.Len()) {
				t.Fatalf("total %d, want %d", b.Total(), all.Len())
			}
			if got := segs(b.Read(c.since)); got != c.want {
				t.Fatalf("Read(%d) = %q, want %q", c.since, got, c.want)
			}
		})
	}
}

// Every segment holds exactly the bytes of the output at its offsets, and
// no more than the bound is kept, whatever the sizes of the writes.
func TestBufferSegmentsMatchTheOutput(t *testing.T) {
	var out []byte
	for i := range 5000 {
		out = append(out, byte('a'+i%26))
	}
	for _, size := range []int{1, 2, 7, 10, 13, 64, 1000} {
		b := NewBuffer(100, 30)
		for i := 0; i < len(out); i += size {
			b.Write(out[i:min(len(out), i+size)])
			for _, since := range []int64{0, int64(i / 2), int64(i)} {
				kept := 0
				for _, s := range b.Read(since) {
					kept += len(s.Data)
					if !bytes.Equal(s.Data, out[s.Offset:s.Offset+int64(len(s.Data))]) {
						t.Fatalf("size %d, after %d bytes, since %d: segment at %d holds %q", size, i, since, s.Offset, s.Data)
					}
				}
				if kept > 100 {
					t.Fatalf("size %d: %d bytes kept", size, kept)
				}
			}
		}
		if tail := b.Tail(5); string(tail) != string(out[len(out)-5:]) {
			t.Fatalf("size %d: tail %q", size, tail)
		}
	}
}
