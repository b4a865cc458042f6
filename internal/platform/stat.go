package platform

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is the kernel's USER_HZ, the unit of stat's times: 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// StartTime is when process pid started, to the kernel's tick: its
// start in ticks since boot, against the uptime now (the boot time that
// /proc/stat gives is rounded to the second).
func StartTime(pid int) (time.Time, error) {
	now := time.Now()
	p, err := ReadProc(pid)
	if err != nil {
		return time.Time{}, err
	}
	b, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return time.Time{}, err
	}
	up, _, _ := strings.Cut(string(b), " ")
	secs, err := strconv.ParseFloat(up, 64)
	if err != nil {
		return time.Time{}, err
	}
	ago := time.Duration(secs*float64(time.Second)) - time.Duration(p.StartTicks)*time.Second/clockTicks
	return now.Add(-ago), nil
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
