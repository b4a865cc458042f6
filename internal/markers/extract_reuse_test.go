package markers

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// seqStream is the raw stream of `seq 1 n` framed by the markers of id, as
// the pane's terminal prints it ("\r\n" line ends).
func seqStream(id ID, n int) (raw []byte, want string) {
	var r, w strings.Builder
	r.WriteString("echo of the typed line\r\n" + Start(id))
	for i := 1; i <= n; i++ {
		r.WriteString(strconv.Itoa(i) + "\r\n")
		w.WriteString(strconv.Itoa(i) + "\n")
	}
	r.WriteString(End(id, 0) + "prompt$ ")
	return []byte(r.String()), w.String()
}

// Chunks of every size, split anywhere (often right after a '\r' or inside
// a marker), give the same output, and the extractor's buffers are reused:
// its allocations do not grow with the number of chunks (ptysend's memory
// must not grow with the output).
func TestExtractorReusesItsBuffersAcrossChunks(t *testing.T) {
	id := ID("0123456789abcdef")
	raw, want := seqStream(id, 20000)
	var allocs []float64
	for _, size := range []int{4097, 1025, 257, 7} {
		var out bytes.Buffer
		a := testing.AllocsPerRun(1, func() {
			out.Reset()
			e := NewExtractor(id, &out)
			for i := 0; i < len(raw); i += size {
				e.Write(raw[i:min(len(raw), i+size)])
			}
			if !e.Done() || e.Status() != 0 {
				t.Fatalf("chunks of %d: the END marker was not found", size)
			}
		})
		if out.String() != want {
			t.Fatalf("chunks of %d: the output differs", size)
		}
		allocs = append(allocs, a)
	}
	// From ~30 chunks to ~20,000: a fixed number of allocations, give or
	// take the growth of reused buffers and of the output buffer.
	if allocs[len(allocs)-1] > allocs[0]+40 {
		t.Fatalf("allocations grow with the number of chunks: %v", allocs)
	}
}
