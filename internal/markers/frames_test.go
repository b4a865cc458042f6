package markers_test

import (
	"bytes"
	"testing"

	"github.com/ptybridge/ptybridge/internal/markers"
)

func frame(id markers.ID, piece string) string {
	return "\x1b]6973;ptybridge;R;" + string(id) + "\a" + piece + "\x1b]6973;ptybridge;r;" + string(id) + "\a"
}

// split feeds chunks to a FrameSplitter and returns (out, sink).
func split(chunks ...string) (string, string) {
	var out, sink bytes.Buffer
	f := markers.NewFrameSplitter(ourID, &out, &sink)
	buf := make([]byte, 0, 64)
	for _, c := range chunks {
		buf = append(buf[:0], c...)
		f.Write(buf)
		for i := range buf {
			buf[i] = '#'
		}
	}
	f.Flush()
	return out.String(), sink.String()
}

func TestFrameSplitter(t *testing.T) {
	whole := "a\r\n" + frame(ourID, "err\r\nmore") + "b" + frame(ourID, "x") + frame(otherID, "theirs") + "c"
	cases := []struct {
		name      string
		chunks    []string
		out, sink string
	}{
		{"no frame", []string{"plain\r\ntext"}, "plain\r\ntext", ""},
		{"frames among output", []string{whole}, "a\r\nb" + frame(otherID, "theirs") + "c", "err\nmorex"},
		{"a prompt without newline", []string{frame(ourID, "Password: ")}, "", "Password: "},
		{"an output \\r stays", []string{frame(ourID, "50%\r100%\r\n")}, "", "50%\r100%\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, sink := split(c.chunks...)
			if out != c.out || sink != c.sink {
				t.Fatalf("want out %q sink %q, got out %q sink %q", c.out, c.sink, out, sink)
			}
		})
	}
	t.Run("split at every byte", func(t *testing.T) {
		var chunks []string
		for i := range len(whole) {
			chunks = append(chunks, whole[i:i+1])
		}
		out, sink := split(chunks...)
		if out != "a\r\nb"+frame(otherID, "theirs")+"c" || sink != "err\nmorex" {
			t.Fatalf("got out %q sink %q", out, sink)
		}
	})
}

func FuzzFrameSplitter(f *testing.F) {
	f.Add("out\r\n", "err\r\n", "tail", 3)
	f.Add("", "Password: ", "", 1)
	f.Fuzz(func(t *testing.T, before, piece, after string, cut int) {
		stream := before + frame(ourID, piece) + after
		if bytes.Contains([]byte(before+piece+after), []byte("6973;ptybridge;")) {
			return
		}
		cut = ((cut % (len(stream) + 1)) + len(stream) + 1) % (len(stream) + 1)
		out, sink := split(stream[:cut], stream[cut:])
		wantSink := string(bytes.ReplaceAll([]byte(piece), []byte("\r\n"), []byte("\n")))
		if out != before+after || sink != wantSink {
			t.Fatalf("want out %q sink %q, got out %q sink %q", before+after, wantSink, out, sink)
		}
	})
}
