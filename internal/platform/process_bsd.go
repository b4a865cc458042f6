//go:build darwin || freebsd

package platform

import (
	"os"
	"time"
)

// The process table of macOS and FreeBSD: sysctl kern.proc, read by kinfo and allProcs of each.

// ReadProc reads process pid from the process table; the zero Proc on an error.
func ReadProc(pid int) (Proc, error) {
	p, err := kinfo(pid)
	return p.Proc, err
}

// Comm is the kernel's name of pid: the file it executed (at most 16 bytes on macOS, 19 on FreeBSD).
func Comm(pid int) string {
	p, _ := kinfo(pid)
	return p.comm
}

// StartTime is when process pid started.
func StartTime(pid int) (time.Time, error) {
	p, err := kinfo(pid)
	if err != nil {
		return time.Time{}, err
	}
	return time.UnixMicro(p.Start), nil
}

// ProcessOwner is the effective user of process pid (root for a set-uid program).
func ProcessOwner(pid int) (int, error) {
	p, err := kinfo(pid)
	return p.uid, err
}

// Children are the child processes of pid, from the whole process table.
func Children(pid int) []int {
	var kids []int
	for _, p := range allProcs() {
		if p.PPID == pid && p.PID != pid {
			kids = append(kids, p.PID)
		}
	}
	return kids
}

// SharesOurUserAndNamespaces: ptysend can drive shell pid not through the terminal (far mode): it
// has our user, to read the runtime dir, and sees our files. macOS has no namespaces; FreeBSD's
// jail is one: the same jail (0 outside any).
func SharesOurUserAndNamespaces(pid int) bool {
	theirs, err := kinfo(pid)
	if err != nil || theirs.uid != os.Geteuid() {
		return false
	}
	ours, err := kinfo(os.Getpid())
	return err == nil && theirs.jail == ours.jail
}
