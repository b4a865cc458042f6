package call

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// A far command's stdin is read whole when it carries data; an empty one is empty, not none; a pipe
// that stays idle and open forwards nothing; one larger than a far shell takes is refused.
func TestReadFarStdin(t *testing.T) {
	if got, err := readFarStdin(strings.NewReader("a\nb\n")); string(got) != "a\nb\n" || err != nil {
		t.Errorf("text: %q, %v", got, err)
	}
	r, w, _ := os.Pipe()
	w.Close()
	if got, err := readFarStdin(r); got == nil || len(got) != 0 || err != nil {
		t.Errorf("an empty pipe: %q (nil %v), %v", got, got == nil, err)
	}
	r, w, _ = os.Pipe()
	defer w.Close()
	if got, err := readFarStdin(r); got != nil || err != nil {
		t.Errorf("an idle pipe: %q, %v", got, err)
	}
	r, w, _ = os.Pipe()
	go func() {
		w.Write([]byte("slow"))
		time.Sleep(2 * stdinIdle)
		w.Write([]byte(" data"))
		w.Close()
	}()
	if got, err := readFarStdin(r); string(got) != "slow data" || err != nil {
		t.Errorf("data that pauses: %q, %v", got, err)
	}
	if got, err := readFarStdin(bytes.NewReader(make([]byte, maxFarStdin+1))); got != nil || err == nil {
		t.Errorf("too large: %d bytes, %v", len(got), err)
	}
	if got, err := readFarStdin(bytes.NewReader(make([]byte, maxFarStdin))); len(got) != maxFarStdin || err != nil {
		t.Errorf("the most: %d bytes, %v", len(got), err)
	}
}
