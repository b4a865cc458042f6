package platform

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Which processes are "ours" has more than one answer, for different
// questions; each has its own name, and they must not be merged:
//
//   - OwnedByUs (ProcessOwner): the process's owner is our effective user.
//     The owner is the kernel's: the user it runs as, or root when the
//     process is not dumpable (a set-uid program). A job runs as the
//     user of the tmux server, so it takes no root shell's settings.
//   - SharesOurUserAndNamespaces: a shell that ptysend can drive the fast
//     way. It must be able to read the private runtime directory (same
//     effective user), see the same files there (same mount namespace)
//     and be watched through /proc (same pid namespace). A shell of
//     another user or namespace is driven through the terminal stream
//     instead (far mode).
//
// FileOwner is a file's owner, for the runtime directory's own check.

// ProcessOwner is the user id that owns process pid.
func ProcessOwner(pid int) (int, error) {
	fi, err := os.Stat(fmt.Sprintf("/proc/%d", pid))
	if err != nil {
		return 0, err
	}
	uid, ok := FileOwner(fi)
	if !ok {
		return 0, fmt.Errorf("no owner of process %d", pid)
	}
	return uid, nil
}

// OwnedByUs reports whether process pid is owned by our effective user
// (see ProcessOwner).
func OwnedByUs(pid int) bool {
	uid, err := ProcessOwner(pid)
	return err == nil && uid == os.Geteuid()
}

// FileOwner is the user id that owns the file fi describes; false when
// the file system does not say.
func FileOwner(fi os.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}

// effectiveUID is the effective user id of pid, or -1 when /proc does
// not say.
func effectiveUID(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 2 {
				if n, err := strconv.Atoi(f[1]); err == nil {
					return n
				}
			}
		}
	}
	return -1
}

// SharesOurUserAndNamespaces reports whether pid runs as our effective
// user, in our mount and pid namespaces, with a working directory we can
// read.
func SharesOurUserAndNamespaces(pid int) bool {
	if effectiveUID(pid) != os.Geteuid() {
		return false
	}
	for _, ns := range []string{"mnt", "pid"} {
		mine, err1 := os.Readlink("/proc/self/ns/" + ns)
		theirs, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", pid, ns))
		if err1 != nil || err2 != nil || mine != theirs {
			return false
		}
	}
	_, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	return err == nil
}

// Children are the child processes of pid, as far as /proc shows them
// (every thread's list), in no particular order.
func Children(pid int) []int {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return nil
	}
	var kids []int
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				kids = append(kids, n)
			}
		}
	}
	return kids
}
