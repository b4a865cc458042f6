package platform

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestUnixSockets(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := ListenUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket file: %v, %v", fi, err)
	}
	client, err := DialUnix(path)
	if err != nil {
		t.Fatal(err)
	}
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	if uid, err := PeerUID(server); err != nil || uid != os.Geteuid() {
		t.Fatalf("PeerUID = %d, %v, want %d", uid, err, os.Geteuid())
	}
	if PeerHungUp(server) {
		t.Fatal("hung up while connected")
	}
	client.Close()
	if !PeerHungUp(server) {
		t.Fatal("no hang-up seen")
	}

	blocking, err := DialUnixBlocking(path, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer blocking.Close()
	if _, err := blocking.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read of a quiet socket: %v, want the deadline", err)
	}

	accepting := make(chan error)
	go func() {
		c, err := ln.Accept() // the blocking client's
		if err == nil {
			c.Close()
			_, err = ln.Accept()
		}
		accepting <- err
	}()
	time.Sleep(20 * time.Millisecond)
	ln.Close()
	select {
	case err := <-accepting:
		if err == nil {
			t.Fatal("Accept after Close")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close does not end Accept")
	}
}

func TestASocketPathTooLongSaysSo(t *testing.T) {
	path := "/tmp/" + strings.Repeat("x", MaxSocketPath)
	if _, err := ListenUnix(path); err == nil || !strings.Contains(err.Error(), "longer than the") {
		t.Fatalf("ListenUnix of %d bytes: %v", len(path), err)
	}
	if _, err := DialUnix(path); err == nil || !strings.Contains(err.Error(), "longer than the") {
		t.Fatalf("DialUnix of %d bytes: %v", len(path), err)
	}
}
