//go:build linux && !portable

package platform

import (
	"fmt"
	"strconv"
	"strings"
)

// ExecImage tells one exec of process pid from another; "" when unknown.
func ExecImage(pid int) string {
	p, _ := ReadProc(pid)
	if p.Image == "" {
		return ""
	}
	return fmt.Sprintf("%d %s", pid, p.Image)
}

// BytesWritten is how many bytes process pid has written (wchar in /proc/PID/io), -1: unknown.
func BytesWritten(pid int) int64 {
	b, _ := readProcFile(fmt.Sprintf("/proc/%d/io", pid))
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "wchar:"); ok {
			if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}
