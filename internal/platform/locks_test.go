package platform

import (
	"testing"
	"time"
)

func TestByteLocksAreSeenThroughAnotherOpen(t *testing.T) {
	dir := t.TempDir()
	mine, err := OpenByteLocks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := mine.Share(42); err != nil {
		t.Fatal(err)
	}
	other, err := OpenByteLocks(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if !other.Held(42) || other.Held(43) {
		t.Fatal("byte 42 alone is locked")
	}
	mine.Close()
	if other.Held(42) {
		t.Fatal("a lock outlives its open")
	}
}

func TestLockDirWaitsForTheHolder(t *testing.T) {
	dir := t.TempDir()
	release, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan func())
	go func() {
		second, err := LockDir(dir)
		if err != nil {
			t.Error(err)
			second = func() {}
		}
		got <- second
	}()
	select {
	case <-got:
		t.Fatal("two holders at once")
	case <-time.After(50 * time.Millisecond):
	}
	release()
	select {
	case second := <-got:
		second()
	case <-time.After(10 * time.Second):
		t.Fatal("the lock was not released")
	}
}
