package platform

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// FreeBSD's process table: sysctl kern.proc (pid, proc, args, env, pathname, cwd).

func kinfo(pid int) (procInfo, error) {
	b, err := unix.SysctlRaw("kern.proc.pid", pid)
	if err != nil {
		return procInfo{}, err
	}
	if len(b) == 0 {
		return procInfo{}, unix.ESRCH
	}
	return parseFreeBSDKinfo(b)
}

func allProcs() []procInfo {
	b, _ := unix.SysctlRaw("kern.proc.proc")
	all, _ := parseFreeBSDKinfos(b)
	return all
}

func Args(pid int) []string {
	b, _ := unix.SysctlRaw("kern.proc.args", pid)
	return nulSeparated(b)
}

// Environ is the environment process pid started with.
func Environ(pid int) []string {
	b, _ := unix.SysctlRaw("kern.proc.env", pid)
	return nulSeparated(b)
}

// Executable is the program file process pid runs, as named at its start.
func Executable(pid int) (string, error) {
	b, err := unix.SysctlRaw("kern.proc.pathname", pid)
	if err != nil {
		return "", err
	}
	if exe := cString(b); exe != "" {
		return exe, nil
	}
	return "", fmt.Errorf("the executable of process %d is unknown", pid)
}

func Cwd(pid int) (string, error) {
	b, err := unix.SysctlRaw("kern.proc.cwd", pid)
	if err != nil {
		return "", err
	}
	return parseFreeBSDKinfoFile(b)
}

// sleepingThreads: whether no thread of pid runs, how many it has; known unless it is gone.
func sleepingThreads(pid int) (asleep bool, threads int, known bool) {
	const procPIDWithThreads = 1 | 0x10 // KERN_PROC_PID | KERN_PROC_INC_THREAD: an entry a thread
	b, err := unix.SysctlRaw("kern.proc", procPIDWithThreads, pid)
	all, perr := parseFreeBSDKinfos(b)
	if err != nil || perr != nil || len(all) == 0 {
		return false, 0, false
	}
	asleep = true
	for _, t := range all {
		asleep = asleep && t.State == 'S'
	}
	return asleep, len(all), true
}
