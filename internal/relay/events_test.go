package relay

import (
	"fmt"
	"strconv"
	"strings"
)

// The hooks' events, as internal/markers' tests write them (its
// events_export_test.go): tests of other packages cannot reach those.

func marker(tag string, fields ...string) string {
	return "\x1b]6973;ptybridge;" + tag + ";" + strings.Join(fields, ";") + "\a"
}

func encodeField(s string) string {
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

func promptEvent(pid int) string  { return marker("P", strconv.Itoa(pid)) }
func commandEvent(pid int) string { return marker("C", strconv.Itoa(pid)) }

func commandLineEvent(pid int, line string) string {
	return marker("C", strconv.Itoa(pid), encodeField(line))
}

func finishedEvent(pid, status int, dir, line string) string {
	return marker("F", strconv.Itoa(pid), strconv.Itoa(status), encodeField(dir), encodeField(line))
}
