// Package markers frames one agent command inside the raw output stream of
// the shared pane.
//
// The command runs from a small script that prints a START marker before it
// and an END marker (with the exit status) after it: OSC escape sequences
// with a number no terminal uses, which tmux swallows, while the raw stream
// that pipe-pane hands us still carries them. Each call has its own random
// id, so output that merely looks like a marker cannot end a call early;
// and the line typed into the shell only sources the script, so its echo
// holds no marker.
package markers

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/ptybridge/ptybridge/internal/platform"
)

// osc is the private OSC number that introduces every marker.
const osc = "6973;ptybridge"

// ID identifies one call. It is 16 lowercase hex digits.
type ID string

// NewID returns a fresh random id from the kernel's random number
// generator (platform.RandomBytes: crypto/rand would cost every call of
// ptysend some 200 KB of resident memory, for 8 bytes).
func NewID() (ID, error) {
	var b [8]byte
	if err := platform.RandomBytes(b[:]); err != nil {
		return "", fmt.Errorf("reading random bytes: %w", err)
	}
	return ID(hex.EncodeToString(b[:])), nil
}

// Valid reports whether id has the shape NewID produces. (No regexp:
// compiling one at every start of ptysend cost ~0.1 ms.)
func (id ID) Valid() bool { return isID(id) }

const idLength = 16

func isID[T ~string | ~[]byte](b T) bool {
	for i := 0; i < len(b); i++ {
		if c := b[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return len(b) == idLength
}

// marker is a marker of ours: ESC ] 6973;ptybridge;TAG;FIELDS BEL.
func marker(tag string, fields ...string) string {
	return "\x1b]" + osc + ";" + tag + ";" + strings.Join(fields, ";") + "\a"
}

// Start is the marker printed before the command's output.
func Start(id ID) string { return marker("S", string(id)) }

// endPrefix is the END marker up to its status.
func endPrefix(id ID) string { return "\x1b]" + osc + ";E;" + string(id) + ";" }

// End is the marker printed after a command that exited with status.
func End(id ID, status int) string { return endPrefix(id) + strconv.Itoa(status) + "\a" }
