package cleantext

import (
	"bytes"
	"slices"
)

// Mode is a terminal mode the output switches: bracketed paste (?2004,
// off at ESC c), in which a line editor takes tmux's paste-buffer -p
// (ESC[200~ ... ESC[201~) as text (a TAB no completion, a newline not
// run), or a full-screen program's alternate screen (?1049, 1047, 47).
type Mode string

const (
	Unknown Mode = "unknown" // no switch seen since the reading started
	Off     Mode = "off"
	On      Mode = "on"
)

// maxParams bounds the parameters kept of a CSI sequence: past it, a mode is unknown.
const maxParams = 32

// modeSwitch is a mode after a CSI sequence ending in h (set) or l
// (reset) with params: private modes ("?1;2004") listing one of numbers.
func modeSwitch(params []byte, set bool, mode Mode, numbers ...string) Mode {
	if len(params) == 0 || params[0] != '?' {
		return mode
	}
	if len(params) > maxParams {
		return Unknown
	}
	for p := range bytes.SplitSeq(params[1:], []byte(";")) {
		if slices.Contains(numbers, string(p)) {
			if set {
				return On
			}
			return Off
		}
	}
	return mode
}
