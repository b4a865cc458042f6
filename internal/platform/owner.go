package platform

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Whether ptysend can drive a shell the fast way depends on whether the
// shell is ours: it must be able to read the private runtime directory
// (same user), see the same files there (same mount namespace) and be
// watched through /proc (same pid namespace). A shell of another user or
// namespace is driven through the terminal stream instead (far mode).

// UID is the effective user id of pid, or -1 when /proc does not say.
func UID(pid int) int {
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

// Ours reports whether pid runs as our effective user, in our mount and
// pid namespaces, with a working directory we can read.
func Ours(pid int) bool {
	if UID(pid) != os.Geteuid() {
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
