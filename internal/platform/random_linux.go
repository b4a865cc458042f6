package platform

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// RandomBytes fills b, of at most 256 bytes (which getrandom(2) reads
// whole), from the kernel's random number generator, as crypto/rand
// does. crypto/rand itself would link Go's FIPS 140 module into ptysend
// (its DRBG, SHA-2 and SHA-3, AES, math/big: some 200 KB of code), which
// costs every call as much resident memory.
func RandomBytes(b []byte) error {
	var n int
	err := ignoringEINTR(func() (err error) {
		n, err = unix.Getrandom(b, 0)
		return err
	})
	if err == nil && n != len(b) {
		err = fmt.Errorf("got %d of %d", n, len(b))
	}
	return err
}
