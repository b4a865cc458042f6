//go:build linux && !portable

package platform

import (
	"fmt"
	"strconv"
)

// ExecImage tells one exec of process pid from another; "" when unknown.
func ExecImage(pid int) string {
	p, _ := ReadProc(pid)
	if p.Image == "" {
		return ""
	}
	return fmt.Sprintf("%d %s", pid, p.Image)
}

// BytesWritten is how many bytes process pid has written, -1: unknown.
func BytesWritten(pid int) int64 {
	n, err := strconv.ParseInt(procValue(pid, "io", "wchar"), 10, 64)
	if err != nil {
		return -1
	}
	return n
}
