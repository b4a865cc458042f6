package platform

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

const (
	getTermios = unix.TCGETS
	setTermios = unix.TCSETS // now, not draining nor flushing
	// inputQueued counts the input's bytes; without line editing, all of them.
	inputQueued = unix.TIOCINQ
)

// TTYOf is the terminal of process pid: its controlling terminal, else the
// first standard file that is one, but /dev/tty (ours, when we open it).
// Not just stdin: a shell running "eval ... <fifo 2<>fifo" has fifos on 0, 2.
func TTYOf(pid int) string {
	if p := controllingPTY(pid); p != "" {
		return p
	}
	for fd := range 3 {
		p, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%d", pid, fd))
		if err == nil && p != "/dev/tty" && isTerminalPath(p) {
			return p
		}
	}
	return ""
}

func controllingPTY(pid int) string {
	p, _ := ReadProc(pid)
	dev := uint64(p.TTY)
	major := unix.Major(dev)
	const ptsMajor = 136 // UNIX98 pseudo-terminals: 136 to 143
	if p.TTY <= 0 || major < ptsMajor || major > ptsMajor+7 {
		return ""
	}
	path := fmt.Sprintf("/dev/pts/%d", (major-ptsMajor)<<8+unix.Minor(dev))
	var st unix.Stat_t
	if unix.Stat(path, &st) != nil || st.Rdev != dev {
		return ""
	}
	return path
}

// isTerminalPath: a pseudo-terminal, or /dev/tty (whoever opens it).
func isTerminalPath(p string) bool {
	return strings.HasPrefix(p, "/dev/pts/") || strings.HasPrefix(p, "/dev/tty")
}
