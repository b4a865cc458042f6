//go:build !linux || portable

package platform

import "fmt"

// ExecImage tells one exec of process pid from another; "" when unknown. Without Linux's code
// and stack addresses, which each exec draws anew, it is what an exec may change: the program
// file and the command line, beside the start, which tells a reused pid. Weaker: a program that
// execs itself with the same arguments (exec bash, typed in a bash started as "bash") looks the
// same.
func ExecImage(pid int) string {
	p, err := ReadProc(pid)
	if err != nil {
		return ""
	}
	exe, _ := Executable(pid)
	args := Args(pid)
	if exe == "" && len(args) == 0 {
		return "" // another user's process: nothing that changes
	}
	return fmt.Sprintf("%d %d %s %q", pid, p.Start, exe, args)
}

// BytesWritten is how many bytes process pid has written, -1: unknown. Only Linux counts them
// (/proc/PID/io): elsewhere it is always unknown.
func BytesWritten(pid int) int64 { return -1 }
