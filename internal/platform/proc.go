package platform

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Args is the command line of pid.
func Args(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// Name is the program name of pid, as a human would call it.
func Name(pid int) string {
	if args := Args(pid); len(args) > 0 && args[0] != "" {
		return strings.TrimPrefix(filepath.Base(args[0]), "-")
	}
	return Comm(pid)
}

// Comm is the kernel's name of pid: the file it executed.
func Comm(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

// TypedAhead reports keys the human typed that the shell has not read yet:
// they wait in the terminal's input queue, typed during the previous
// command, and appear on the line only once the shell reads them.
func TypedAhead(shellPID int) bool {
	tty := OpenTTY(TTYOf(shellPID))
	if tty == nil {
		return false
	}
	defer tty.Close()
	n, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCINQ)
	return err == nil && n > 0
}

// AtLineEditor reports whether the shell waits for keys in its line
// editor: asleep in poll or select with the terminal in non-canonical
// mode. A loop of builtins runs; a builtin read sleeps in a cooked read.
func AtLineEditor(shellPID int) bool {
	tty := OpenTTY(TTYOf(shellPID))
	if tty == nil {
		return false
	}
	defer tty.Close()
	wchan := readTrimmed(fmt.Sprintf("/proc/%d/wchan", shellPID))
	return taskState(fmt.Sprintf("/proc/%d/", shellPID)) == 'S' &&
		hasAnyPrefix(wchan, pollWaits) && lineEditorMode(tty)
}

// BytesWritten is the number of bytes process pid has written (wchar in
// /proc/PID/io), or -1 when unknown.
func BytesWritten(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}
