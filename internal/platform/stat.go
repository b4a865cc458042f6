package platform

import (
	"fmt"
	"os"
	"strconv"
	"strings"
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

// Cwd is the working directory of process pid.
func Cwd(pid int) (string, error) {
	return os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
}

// Executable is the program file that process pid runs, as it was named
// when the process started it (it may since have been replaced).
func Executable(pid int) (string, error) {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return strings.TrimSuffix(exe, " (deleted)"), err
}

// Environ is the environment process pid started with, "KEY=value"
// each: the kernel shows nothing of the changes it made since.
func Environ(pid int) []string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	return strings.FieldsFunc(string(b), func(r rune) bool { return r == 0 })
}
