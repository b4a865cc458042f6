package platform

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// RandomBytes fills b, at most 256 bytes, from getrandom(2): crypto/rand
// would link Go's FIPS 140 module, 200 KB of code each call maps.
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
