package cleantext

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
)

// seqOutput is what `seq 1 n` writes: about 2 MB for n = 300000.
func seqOutput(n int) []byte {
	var b []byte
	for i := 1; i <= n; i++ {
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, '\n')
	}
	return b
}

// readerOnly and writerOnly hide io.WriterTo and io.ReaderFrom, so that
// io.Copy moves the data the way ptysend does: in 32 KB chunks read from
// the pane's stream, each written on.
type readerOnly struct{ io.Reader }
type writerOnly struct{ io.Writer }

// BenchmarkSeq compares passing `seq 1 300000` through raw (io.Copy) with
// cleaning it through a Writer, into a sink that does nothing (the
// Writer's cost alone) and into /dev/null (a write system call per chunk,
// as writing to ptysend's stdout costs at least).
func BenchmarkSeq(b *testing.B) {
	data := seqOutput(300000)
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	sinks := []struct {
		name string
		w    io.Writer
	}{{"discard", discard{}}, {"devnull", writerOnly{devNull}}}
	for _, sink := range sinks {
		b.Run("raw/"+sink.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				io.Copy(writerOnly{sink.w}, readerOnly{bytes.NewReader(data)})
			}
		})
		b.Run("clean/"+sink.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				c := NewWriter(sink.w)
				io.Copy(writerOnly{c}, readerOnly{bytes.NewReader(data)})
				c.Close()
			}
		})
	}
}

// BenchmarkInterpreted measures the lines that cannot take the fast path:
// coloured (grep --color, ls --color) and "\r\n"-ended (under sudo).
func BenchmarkInterpreted(b *testing.B) {
	inputs := []struct {
		name, line string
	}{
		{"coloured", "\x1b[35mmain.go\x1b[0m:\x1b[32m42\x1b[0m:func \x1b[01;31mmain\x1b[0m() {\n"},
		{"crlf", "drwxr-xr-x 2 root root 4096 Jan  1 00:00 bin\r\n"},
		{"progress", "[####      ] 40%\r\x1b[K[#######   ] 70%\r\x1b[K[##########] 100%\n"},
	}
	for _, in := range inputs {
		data := []byte(strings.Repeat(in.line, 2<<20/len(in.line)))
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				c := NewWriter(discard{})
				io.Copy(writerOnly{c}, readerOnly{bytes.NewReader(data)})
				c.Close()
			}
		})
	}
}
