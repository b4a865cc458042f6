package platform

import (
	"io"
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/unix"
)

func TestAPipeReaderCountsWhatItTookAndWhatWaits(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	p, err := NewPipeReader(r)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteString("0123456789")
	if got := p.Reached(); got != 10 {
		t.Fatalf("Reached with 10 bytes waiting = %d", got)
	}
	buf := make([]byte, 4)
	if n, err := p.Read(buf); n != 4 || err != nil {
		t.Fatalf("Read = %d, %v", n, err)
	}
	if got := p.Reached(); got != 10 {
		t.Fatalf("Reached with 4 taken and 6 waiting = %d", got)
	}
	w.WriteString("abcde")
	if got := p.Reached(); got != 15 {
		t.Fatalf("Reached after 5 more = %d", got)
	}
	w.Close()
	rest, err := io.ReadAll(p)
	if string(rest) != "456789abcde" || err != nil {
		t.Fatalf("the rest: %q, %v", rest, err)
	}
}

// A reader that has taken bytes but not handed them on still counts them: whatever the moment,
// Reached is every byte written so far, never fewer.
func TestAPipeReaderNeverReachesLessThanWasWritten(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPipeReader(r)
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, p)
	defer w.Close()
	chunk := []byte("some output of the pane\r\n")
	for written := int64(0); written < 2_000_000; {
		n, err := w.Write(chunk)
		if err != nil {
			t.Fatal(err)
		}
		written += int64(n)
		if got := p.Reached(); got != written {
			t.Fatalf("Reached = %d after %d bytes written", got, written)
		}
	}
}

// The relay's standard input, as tmux's pipe-pane gives it, is a blocking pipe: the reader makes
// it non-blocking so that a read never waits while it holds the count.
func TestAPipeReaderReadsABlockingStandardInput(t *testing.T) {
	if os.Getenv("PIPE_READER_CHILD") != "" {
		if flags, err := unix.FcntlInt(0, unix.F_GETFL, 0); err != nil || flags&unix.O_NONBLOCK != 0 {
			t.Fatalf("the child's standard input should start blocking: %#x, %v", flags, err)
		}
		p, err := NewPipeReader(os.Stdin)
		if err != nil {
			t.Fatal(err)
		}
		if flags, err := unix.FcntlInt(0, unix.F_GETFL, 0); err != nil || flags&unix.O_NONBLOCK == 0 {
			t.Fatalf("the reader left its standard input blocking: %#x, %v", flags, err)
		}
		os.Stdout.WriteString("ready\n")
		if n, err := io.Copy(io.Discard, p); n != 5 || err != nil {
			t.Fatalf("read %d bytes, %v", n, err)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestAPipeReaderReadsABlockingStandardInput$")
	cmd.Env = append(os.Environ(), "PIPE_READER_CHILD=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 6)
	if _, err := io.ReadFull(out, line); err != nil || string(line) != "ready\n" {
		t.Fatalf("the child said %q, %v", line, err)
	}
	in.Write([]byte("hello"))
	in.Close()
	rest, _ := io.ReadAll(out)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, rest)
	}
}
