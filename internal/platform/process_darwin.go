package platform

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// macOS's process table: sysctl kern.proc and kern.procargs2; proc_info(2) for what sysctl does
// not tell (the working directory, running threads).

func kinfo(pid int) (procInfo, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return procInfo{}, err
	}
	return darwinProc(k), nil
}

func darwinProc(k *unix.KinfoProc) procInfo {
	tty := int(k.Eproc.Tdev)
	if tty == -1 { // NODEV
		tty = 0
	}
	pid := int(k.Proc.P_pid)
	sid, _ := unix.Getsid(pid) // kinfo_proc has only a kernel pointer to the session
	return procInfo{
		Proc: Proc{
			PID: pid, PPID: int(k.Eproc.Ppid), PGID: int(k.Eproc.Pgid), SID: sid,
			State: stateLetter(byte(k.Proc.P_stat)), TTY: tty, TPGID: int(k.Eproc.Tpgid),
			Start: k.Proc.P_starttime.Sec*1e6 + int64(k.Proc.P_starttime.Usec),
		},
		uid:  int(k.Eproc.Ucred.Uid),
		comm: cString(k.Proc.P_comm[:]),
	}
}

func allProcs() []procInfo {
	all, _ := unix.SysctlKinfoProcSlice("kern.proc.all")
	out := make([]procInfo, 0, len(all))
	for i := range all {
		out = append(out, darwinProc(&all[i]))
	}
	return out
}

func procArgs(pid int) (exe string, args, env []string) {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return "", nil, nil
	}
	return parseProcArgs2(b)
}

func Args(pid int) []string {
	_, args, _ := procArgs(pid)
	return args
}

// Environ is the environment process pid started with.
func Environ(pid int) []string {
	_, _, env := procArgs(pid)
	return env
}

// Executable is the program file process pid runs, as named at its start.
func Executable(pid int) (string, error) {
	if exe, _, _ := procArgs(pid); exe != "" {
		return exe, nil
	}
	return "", fmt.Errorf("the executable of process %d is unknown", pid)
}

const (
	procInfoCallPIDInfo = 2 // PROC_INFO_CALL_PIDINFO, as libproc's proc_pidinfo calls proc_info(2)
	procPIDTaskInfo     = 4 // PROC_PIDTASKINFO
	procPIDVnodePath    = 9 // PROC_PIDVNODEPATHINFO
)

// procPIDInfo is libproc's proc_pidinfo without cgo: x/sys/unix wraps no proc_info(2), so it is
// called by number, as Go called every system call on macOS before 1.11. Untested: no Mac ran it.
func procPIDInfo(pid, flavor int, buf []byte) error {
	//lint:ignore SA1019 libSystem's proc_pidinfo would need cgo or an assembly trampoline
	n, _, errno := unix.Syscall6(unix.SYS_PROC_INFO, procInfoCallPIDInfo, uintptr(pid), uintptr(flavor), 0,
		uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
	switch {
	case errno != 0:
		return errno
	case int(n) < len(buf):
		return errors.New("proc_info: a short answer")
	}
	return nil
}

// Cwd is the working directory of process pid (proc_pidinfo's PROC_PIDVNODEPATHINFO).
func Cwd(pid int) (string, error) {
	b := make([]byte, darwinVnodePathInfoSize)
	if err := procPIDInfo(pid, procPIDVnodePath, b); err != nil {
		return "", fmt.Errorf("the directory of process %d: %w", pid, err)
	}
	return parseDarwinCwd(b)
}

// sleepingThreads: whether no thread of pid runs, how many it has; unknown for another user's.
func sleepingThreads(pid int) (asleep bool, threads int, known bool) {
	b := make([]byte, darwinTaskInfoSize)
	if procPIDInfo(pid, procPIDTaskInfo, b) != nil {
		return false, 0, false
	}
	threads, running, err := parseDarwinTaskInfo(b)
	return err == nil && running == 0, threads, err == nil && threads > 0
}
