package platform

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ReadProc reads /proc/PID/stat.
func ReadProc(pid int) (Proc, error) {
	return readStat(fmt.Sprintf("/proc/%d/stat", pid))
}

// readStat parses a stat file of /proc: a process's, or one of its
// threads' (/proc/PID/task/TID/stat).
func readStat(path string) (Proc, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Proc{}, err
	}
	// The command name, in parentheses after the pid, may itself hold
	// spaces and parentheses: the fields after it start at the last ')'.
	i := bytes.LastIndexByte(b, ')')
	j := bytes.IndexByte(b, '(')
	if i < 0 || j < 0 || j > i {
		return Proc{}, fmt.Errorf("unexpected %s", path)
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3, the state
	if len(f) < 20 || len(f[0]) != 1 {
		return Proc{}, fmt.Errorf("unexpected %s", path)
	}
	var s statParser
	p := Proc{
		PID:        s.num(string(bytes.TrimSpace(b[:j]))),
		State:      f[0][0],
		PPID:       s.num(f[1]),
		PGID:       s.num(f[2]),
		SID:        s.num(f[3]),
		TTY:        s.num(f[4]),
		TPGID:      s.num(f[5]),
		StartTicks: s.num64(f[19]),
	}
	// startcode, endcode and startstack (fields 26 to 28), which the
	// kernel shows as 0 to whoever may not trace the process.
	if len(f) >= 26 && f[23] != "0" {
		p.Image = strings.Join(f[23:26], " ")
	}
	if s.err != nil {
		return Proc{}, fmt.Errorf("unexpected %s: %w", path, s.err)
	}
	return p, nil
}

// statParser parses the numbers of a stat file, keeping the first error.
type statParser struct{ err error }

func (s *statParser) num(field string) int { return int(s.num64(field)) }

func (s *statParser) num64(field string) int64 {
	n, err := strconv.ParseInt(field, 10, 64)
	if err != nil && s.err == nil {
		s.err = err
	}
	return n
}
