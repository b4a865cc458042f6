package platform

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
)

// The readers of what macOS's and FreeBSD's sysctl kern.proc return, pure functions on bytes:
// built on every OS, so that their tests run on Linux too. Only the BSDs call them.

// procInfo is one process as the BSDs' process table tells it.
type procInfo struct {
	Proc
	uid     int    // the effective user
	jail    int    // FreeBSD's jail id, 0 outside any
	comm    string // the kernel's name of the program
	threads int    // FreeBSD's count; 0: unknown
}

// The offsets in FreeBSD's struct kinfo_proc (sys/user.h) on a 64-bit CPU, FreeBSD 12 and later:
// x/sys/unix has no such type for FreeBSD.
const (
	freebsdKinfoSize  = 1088
	kiPID             = 72
	kiPPID            = 76
	kiPGID            = 80
	kiTPGID           = 84
	kiSID             = 88
	kiUID             = 168 // effective
	kiStart           = 336 // struct timeval
	kiStat            = 388
	kiComm            = 447 // char[20]
	kiTdev            = 560 // uint64; the 32-bit ki_tdev_freebsd11 at 100 truncates it
	kiJID             = 592
	kiNumThreads      = 596
	freebsdNoDevice   = ^uint64(0)
	freebsdCommLength = 20
)

// parseFreeBSDKinfo reads one struct kinfo_proc, of a process or (KERN_PROC_INC_THREAD) a thread.
func parseFreeBSDKinfo(b []byte) (procInfo, error) {
	if len(b) < freebsdKinfoSize || binary.LittleEndian.Uint32(b) != freebsdKinfoSize {
		return procInfo{}, fmt.Errorf("unexpected kinfo_proc of %d bytes", len(b))
	}
	i32 := func(off int) int { return int(int32(binary.LittleEndian.Uint32(b[off:]))) }
	i64 := func(off int) int64 { return int64(binary.LittleEndian.Uint64(b[off:])) }
	tty := binary.LittleEndian.Uint64(b[kiTdev:])
	if tty == freebsdNoDevice {
		tty = 0
	}
	return procInfo{
		Proc: Proc{
			PID: i32(kiPID), PPID: i32(kiPPID), PGID: i32(kiPGID), SID: i32(kiSID),
			State: stateLetter(b[kiStat]), TTY: int(tty), TPGID: i32(kiTPGID),
			Start: i64(kiStart)*1e6 + i64(kiStart+8),
		},
		uid:     int(binary.LittleEndian.Uint32(b[kiUID:])),
		jail:    i32(kiJID),
		comm:    cString(b[kiComm : kiComm+freebsdCommLength]),
		threads: i32(kiNumThreads),
	}, nil
}

// parseFreeBSDKinfos splits what kern.proc returns for several processes or threads.
func parseFreeBSDKinfos(b []byte) ([]procInfo, error) {
	var out []procInfo
	for len(b) > 0 {
		p, err := parseFreeBSDKinfo(b)
		if err != nil {
			return nil, err
		}
		out, b = append(out, p), b[freebsdKinfoSize:]
	}
	return out, nil
}

// stateLetter is Linux's letter for a BSD p_stat/ki_stat (sys/proc.h): SIDL 1, SRUN 2, SSLEEP 3,
// SSTOP 4, SZOMB 5, and FreeBSD's SWAIT 6, SLOCK 7. macOS says SRUN of every live process.
func stateLetter(stat byte) byte {
	if int(stat) < len(" IRSTZWL") {
		return " IRSTZWL"[stat]
	}
	return '?'
}

// parseProcArgs2 reads macOS's kern.procargs2: argc (a 32-bit int), the executable's path, NUL
// padding, argc arguments, then the environment, each NUL-terminated, then anything.
func parseProcArgs2(b []byte) (exe string, args, env []string) {
	if len(b) < 4 {
		return "", nil, nil
	}
	argc := int(binary.LittleEndian.Uint32(b))
	rest := b[4:]
	exe, rest = nextCString(rest)
	for len(rest) > 0 && rest[0] == 0 {
		rest = rest[1:]
	}
	for len(rest) > 0 {
		var s string
		s, rest = nextCString(rest)
		switch {
		case len(args) < argc:
			args = append(args, s)
		case s == "":
			return exe, args, env
		default:
			env = append(env, s)
		}
	}
	return exe, args, env
}

// nulSeparated reads FreeBSD's kern.proc.args and kern.proc.env: NUL-terminated strings.
func nulSeparated(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}

func nextCString(b []byte) (string, []byte) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return string(b[:i]), b[i+1:]
	}
	return string(b), nil
}

func cString(b []byte) string {
	s, _ := nextCString(b)
	return s
}

// FreeBSD's kern.proc.cwd is a struct kinfo_file whose last field is kf_path[PATH_MAX]: at 368.
const kinfoFilePathOffset = 368

func parseFreeBSDKinfoFile(b []byte) (string, error) {
	if len(b) <= kinfoFilePathOffset {
		return "", fmt.Errorf("unexpected kinfo_file of %d bytes", len(b))
	}
	return cString(b[kinfoFilePathOffset:]), nil
}

// macOS's proc_info(2): struct proc_vnodepathinfo (PROC_PIDVNODEPATHINFO) starts with the working
// directory's struct vnode_info_path, whose path follows a 152-byte struct vnode_info; struct
// proc_taskinfo (PROC_PIDTASKINFO) has pti_threadnum and pti_numrunning at 84 and 88.
const (
	darwinVnodePathInfoSize = 2 * (152 + 1024)
	darwinCwdOffset         = 152
	darwinTaskInfoSize      = 96
	darwinThreadNumOffset   = 84
	darwinNumRunningOffset  = 88
)

func parseDarwinCwd(b []byte) (string, error) {
	if len(b) < darwinVnodePathInfoSize {
		return "", fmt.Errorf("unexpected proc_vnodepathinfo of %d bytes", len(b))
	}
	return cString(b[darwinCwdOffset : darwinCwdOffset+1024]), nil
}

func parseDarwinTaskInfo(b []byte) (threads, running int, err error) {
	if len(b) < darwinTaskInfoSize {
		return 0, 0, fmt.Errorf("unexpected proc_taskinfo of %d bytes", len(b))
	}
	return int(int32(binary.LittleEndian.Uint32(b[darwinThreadNumOffset:]))),
		int(int32(binary.LittleEndian.Uint32(b[darwinNumRunningOffset:]))), nil
}
