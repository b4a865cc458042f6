package platform

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

func TestReadNowNeverWaits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	fifo, err := OpenNoWait(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fifo.Close()
	buf := make([]byte, 16)
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := ReadNow(fifo, buf); n != 0 || !errors.Is(err, ErrWouldWait) {
		t.Fatalf("ReadNow of an empty fifo = %d, %v", n, err)
	}
	w.WriteString("hi")
	if n, err := ReadNow(fifo, buf); err != nil || string(buf[:n]) != "hi" {
		t.Fatalf("ReadNow = %q, %v", buf[:n], err)
	}
	w.Close()
	if n, err := ReadNow(fifo, buf); n != 0 || err != io.EOF {
		t.Fatalf("ReadNow of a fifo without writers = %d, %v", n, err)
	}
}

// SetStdoutAside changes this process's descriptors: a child of the test
// binary calls it.
func TestSetStdoutAside(t *testing.T) {
	if os.Getenv("PTB_STDOUT_ASIDE") != "" {
		protocol, err := SetStdoutAside("protocol")
		if err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("stray\n")
		protocol.WriteString("protocol\n")
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSetStdoutAside$")
	cmd.Env = append(os.Environ(), "PTB_STDOUT_ASIDE=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if stdout.String() != "protocol\n" || !bytes.Contains(stderr.Bytes(), []byte("stray\n")) {
		t.Fatalf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}
