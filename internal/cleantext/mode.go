package cleantext

import (
	"bytes"
	"slices"
)

// Mode is a terminal mode a program switches, as its output shows it:
// bracketed paste (ESC[?2004h, ESC[?2004l; a reset, ESC c, ends it), in
// which a line editor takes text that tmux's paste-buffer -p wraps in
// ESC[200~ ... ESC[201~ as text (a TAB is no completion, a newline does
// not run the line); the alternate screen (ESC[?1049h and its older forms
// 1047 and 47) of a full-screen program.
type Mode string

const (
	Unknown Mode = "unknown" // no switch seen since the reading started
	Off     Mode = "off"
	On      Mode = "on"
)

// MaxParams bounds the parameters kept of a CSI sequence; a mode switch
// in a longer one is unknown.
const MaxParams = 32

var pasteModes = []string{"2004"}

// ModeSwitch is a mode after a CSI sequence ending in h (set) or l
// (reset) with the given parameter bytes: private modes ("?1;2004")
// switch it when they list one of its numbers.
func ModeSwitch(params []byte, set bool, mode Mode, numbers []string) Mode {
	if len(params) == 0 || params[0] != '?' {
		return mode
	}
	if len(params) > MaxParams {
		return Unknown
	}
	for _, p := range bytes.Split(params[1:], []byte(";")) {
		if slices.Contains(numbers, string(p)) {
			if set {
				return On
			}
			return Off
		}
	}
	return mode
}
