package platform

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ReadProc reads /proc/PID/stat; the zero Proc on an error.
func ReadProc(pid int) (Proc, error) {
	return readStat(fmt.Sprintf("/proc/%d/stat", pid))
}

func readStat(path string) (Proc, error) {
	b, err := readProcFile(path)
	if err != nil {
		return Proc{}, err
	}
	// The command name, in parentheses, may itself hold spaces and
	// parentheses: the fields after it start at the last ')'.
	i, j := bytes.LastIndexByte(b, ')'), bytes.IndexByte(b, '(')
	if i < 0 || j < 0 || j > i {
		return Proc{}, fmt.Errorf("unexpected %s", path)
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3, the state
	if len(f) < 20 || len(f[0]) != 1 {
		return Proc{}, fmt.Errorf("unexpected %s", path)
	}
	num := func(field string) int64 {
		n, e := strconv.ParseInt(field, 10, 64)
		err = cmp.Or(err, e)
		return n
	}
	p := Proc{
		PID:   int(num(string(bytes.TrimSpace(b[:j])))),
		State: f[0][0],
		PPID:  int(num(f[1])),
		PGID:  int(num(f[2])),
		SID:   int(num(f[3])),
		TTY:   int(num(f[4])),
		TPGID: int(num(f[5])),
		Start: num(f[19]),
	}
	// startcode, endcode and startstack, 0 to whoever may not trace it.
	if len(f) >= 26 && f[23] != "0" {
		p.Image = strings.Join(f[23:26], " ")
	}
	if err != nil {
		return Proc{}, fmt.Errorf("unexpected %s: %w", path, err)
	}
	return p, nil
}

func Args(pid int) []string {
	b, err := readProcFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// Comm is the kernel's name of pid: the file it executed.
func Comm(pid int) string {
	return readTrimmed(fmt.Sprintf("/proc/%d/comm", pid))
}

const clockTicks = 100 // USER_HZ, the unit of stat's times, on every architecture Go supports

// StartTime is when process pid started, by the uptime (/proc/stat's boot time is in seconds).
func StartTime(pid int) (time.Time, error) {
	now := time.Now()
	p, err := ReadProc(pid)
	b, uptimeErr := readProcFile("/proc/uptime")
	var up float64 // seconds
	if err = cmp.Or(err, uptimeErr); err == nil {
		_, err = fmt.Sscan(string(b), &up)
	}
	if err != nil {
		return time.Time{}, err
	}
	ago := time.Duration(up*float64(time.Second)) - time.Duration(p.Start)*time.Second/clockTicks
	return now.Add(-ago), nil
}

func Cwd(pid int) (string, error) {
	return os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
}

// Executable is the program file process pid runs, as named at its start.
func Executable(pid int) (string, error) {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return strings.TrimSuffix(exe, " (deleted)"), err
}

// Environ is the environment process pid started with.
func Environ(pid int) []string {
	b, _ := readProcFile(fmt.Sprintf("/proc/%d/environ", pid))
	return strings.FieldsFunc(string(b), func(r rune) bool { return r == 0 })
}

// Children are the child processes of pid, of every thread.
func Children(pid int) []int {
	var kids []int
	for _, task := range taskDirs(pid) {
		b, _ := readProcFile(task + "children")
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				kids = append(kids, n)
			}
		}
	}
	return kids
}

func taskDirs(pid int) []string {
	dir := fmt.Sprintf("/proc/%d/task/", pid)
	tasks, _ := os.ReadDir(dir)
	dirs := make([]string, len(tasks))
	for i, t := range tasks {
		dirs[i] = dir + t.Name() + "/"
	}
	return dirs
}

func ProcessOwner(pid int) (int, error) {
	fi, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	if err != nil {
		return 0, err
	}
	return int(fi.Sys().(*syscall.Stat_t).Uid), nil
}

// SharesOurUserAndNamespaces: ptysend can drive shell pid not through the terminal (far mode): it
// has our user, to read the runtime dir, and our mount and pid namespaces, to see it and /proc.
func SharesOurUserAndNamespaces(pid int) bool {
	// /proc/PID is owned by the process's effective user (root's when it is not dumpable, and
	// then its cwd is hidden from us below too): one stat, where the status file is 1.5 KB made.
	if owner, err := ProcessOwner(pid); err != nil || owner != os.Geteuid() {
		return false
	}
	for _, ns := range []string{"mnt", "pid"} {
		mine, err1 := os.Readlink("/proc/self/ns/" + ns)
		theirs, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", pid, ns))
		if err1 != nil || err2 != nil || mine != theirs {
			return false
		}
	}
	_, err := Cwd(pid)
	return err == nil
}

func readTrimmed(path string) string {
	b, _ := readProcFile(path)
	return strings.TrimSpace(string(b))
}

func taskState(taskDir string) byte {
	p, _ := readStat(taskDir + "stat")
	return p.State
}
