package platform

import "testing"

func TestRandomBytes(t *testing.T) {
	var a, b [8]byte
	if err := RandomBytes(a[:]); err != nil {
		t.Fatal(err)
	}
	if err := RandomBytes(b[:]); err != nil {
		t.Fatal(err)
	}
	if a == b {
		t.Fatalf("the same 8 random bytes twice: %x", a)
	}
}
