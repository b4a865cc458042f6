//go:build darwin || freebsd

package platform

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

const (
	getTermios = unix.TIOCGETA
	setTermios = unix.TIOCSETA // now, not draining nor flushing
	// inputQueued counts the input's bytes; without line editing, all of them. It is FIONREAD,
	// _IOR('f', 127, int) on macOS and FreeBSD alike; x/sys/unix defines it for neither.
	inputQueued = 0x4004667f
)

// TTYOf is the controlling terminal of process pid. Linux also takes a standard file that is a
// terminal, from /proc/PID/fd: the BSDs show no other process's open files so simply.
func TTYOf(pid int) string {
	p, err := ReadProc(pid)
	if err != nil || p.TTY <= 0 {
		return ""
	}
	return terminalPath(p.TTY)
}

// terminalPath is the pseudo-terminal whose device number is dev: /dev/ttysNNN on macOS,
// /dev/pts/N on FreeBSD (whose N is no part of the number).
func terminalPath(dev int) string {
	for _, pattern := range []string{"/dev/ttys*", "/dev/pts/*"} {
		paths, _ := filepath.Glob(pattern)
		for _, path := range paths {
			var st unix.Stat_t
			if unix.Stat(path, &st) == nil && int(st.Rdev) == dev {
				return path
			}
		}
	}
	return ""
}
