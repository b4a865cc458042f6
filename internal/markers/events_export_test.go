package markers

import (
	"fmt"
	"strconv"
	"strings"
)

// The events as the hooks print them, for the tests of this package and
// of the ones reading the stream (internal/relay keeps a copy).

// EncodeField percent-encodes what a marker's field cannot carry as it
// is: control characters (BEL or ESC would end the marker, CAN and SUB
// cancel it in the terminal), DEL, '%' and the separator ';'.
func EncodeField(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c == '%' || c == ';' {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// PromptEvent, CommandEvent, CommandLineEvent and FinishedEvent are the
// events as the hooks print them.
func PromptEvent(pid int) string  { return marker("P", strconv.Itoa(pid)) }
func CommandEvent(pid int) string { return marker("C", strconv.Itoa(pid)) }

// ModeEvent is a line editor's mode: vi command mode, or not.
func ModeEvent(pid int, viCommand bool) string {
	if viCommand {
		return marker("K", strconv.Itoa(pid), "cmd")
	}
	return marker("K", strconv.Itoa(pid), "ins")
}

func CommandLineEvent(pid int, line string) string {
	return marker("C", strconv.Itoa(pid), EncodeField(line))
}

func FinishedEvent(pid, status int, dir, line string) string {
	return marker("F", strconv.Itoa(pid), strconv.Itoa(status), EncodeField(dir), EncodeField(line))
}
