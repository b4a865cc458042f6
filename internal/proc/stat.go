package proc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// statFields is /proc/PID/stat from its third field (the state) on: the
// command name before it may hold spaces and parentheses.
func statFields(pid int) ([]string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return nil, fmt.Errorf("unexpected /proc/%d/stat", pid)
	}
	return f, nil
}

// SameTerminal reports whether process pid has the controlling terminal
// of process other (field 7 of stat, tty_nr), and one at all.
func SameTerminal(pid, other int) bool {
	a, err1 := statFields(pid)
	b, err2 := statFields(other)
	return err1 == nil && err2 == nil && a[4] == b[4] && a[4] != "0"
}

// clockTicks is the kernel's USER_HZ, the unit of stat's times: 100 on
// every Linux architecture Go supports.
const clockTicks = 100

var bootTime = sync.OnceValues(func() (time.Time, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			secs, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return time.Unix(secs, 0), err
		}
	}
	return time.Time{}, fmt.Errorf("no btime in /proc/stat")
})

// StartTime is when process pid started (to the kernel's tick, and the
// boot time's second).
func StartTime(pid int) (time.Time, error) {
	f, err := statFields(pid)
	if err != nil {
		return time.Time{}, err
	}
	ticks, err := strconv.ParseInt(f[19], 10, 64) // field 22, starttime
	if err != nil {
		return time.Time{}, err
	}
	boot, err := bootTime()
	if err != nil {
		return time.Time{}, err
	}
	return boot.Add(time.Duration(ticks) * time.Second / clockTicks), nil
}

// Owner is the user id that process pid runs as.
func Owner(pid int) (int, error) {
	fi, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	if err != nil {
		return 0, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, fmt.Errorf("no owner of process %d", pid)
	}
	return int(st.Uid), nil
}

// Cwd is the working directory of process pid, "" when unknown.
func Cwd(pid int) string {
	dir, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	return dir
}
