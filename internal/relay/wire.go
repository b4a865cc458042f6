package relay

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The query socket's answers are lines of words, not JSON: a query is a
// whole ptysend process that must cost at most half a trivial call, and
// encoding/json's first decoding in a fresh process (building its view
// of the types) cost 0.2-0.6 ms of a ~4 ms --status. Text that may hold
// anything (a command line, a directory) travels in hex. The answer is
//
//	ptybridge-query VERSION
//	error HEX
//	pane ID PID
//	shell STATE:PID
//	dir HEX
//	call SINCE QUEUED HEX
//	running ENTRY
//	entry ENTRY           (one per command)
//	size N
//	end
//
// each line but the first and "end" optional, then N bytes when size says
// so. Times are Unix nanoseconds; HEX is an "x" and the hex digits (so
// that an empty text is a word too). An ENTRY is
//
//	ID WHO RUNNING STATUS START END DURATION_MS SHELL_PID OUTPUT_BYTES LEFT_OUT HEX(DIR) HEX(COMMAND)
//
// with RUNNING 0 or 1, STATUS "-" when there is none and END 0 while running.

const queryHello = "ptybridge-query"

// appendAnswer encodes a.
func appendAnswer(b []byte, a *Answer) []byte {
	b = fmt.Appendf(b, "%s %d\n", queryHello, a.Version)
	if a.Error != "" {
		b = fmt.Appendf(b, "error x%x\n", a.Error)
	}
	if a.PaneID != "" {
		b = fmt.Appendf(b, "pane %s %d\n", a.PaneID, a.PanePID)
	}
	if a.Shell != "" {
		b = fmt.Appendf(b, "shell %s\n", a.Shell)
	}
	if a.ShellDir != "" {
		b = fmt.Appendf(b, "dir x%x\n", a.ShellDir)
	}
	if c := a.Call; c != nil {
		b = fmt.Appendf(b, "call %d %d x%x\n", c.Since.UnixNano(), c.Queued, c.Call)
	}
	if a.Running != nil {
		b = appendEntry(append(b, "running "...), a.Running)
	}
	for i := range a.Entries {
		b = appendEntry(append(b, "entry "...), &a.Entries[i])
	}
	if a.Entry != nil {
		b = appendEntry(append(b, "entry "...), a.Entry)
	}
	if a.Size > 0 {
		b = fmt.Appendf(b, "size %d\n", a.Size)
	}
	return append(b, "end\n"...)
}

func appendEntry(b []byte, e *Entry) []byte {
	running, status, end := 0, "-", int64(0)
	if e.Running {
		running = 1
	}
	if e.Status != nil {
		status = strconv.Itoa(*e.Status)
	}
	if e.End != nil {
		end = e.End.UnixNano()
	}
	return fmt.Appendf(b, "%d %s %d %s %d %d %d %d %d %d x%x x%x\n", e.ID, e.Who, running, status, e.Start.UnixNano(), end,
		e.DurationMS, e.ShellPID, e.OutputBytes, e.OutputLeftOut, e.Dir, e.Command)
}

// readAnswer decodes an answer, up to its "end" line.
func readAnswer(rd *bufio.Reader) (*Answer, error) {
	a := &Answer{}
	first := true
	for {
		line, err := rd.ReadString('\n')
		if err != nil {
			return nil, err
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			return nil, fmt.Errorf("an empty line")
		}
		if first {
			if len(f) != 2 || f[0] != queryHello {
				return nil, fmt.Errorf("not an answer: %q", line)
			}
			a.Version, err = strconv.Atoi(f[1])
			if err != nil || a.Version != protocolVersion {
				return a, nil // the caller refuses another version
			}
			first = false
			continue
		}
		if err := a.readLine(f); err != nil {
			return nil, fmt.Errorf("%v in %q", err, line)
		}
		if f[0] == "end" {
			return a, nil
		}
	}
}

func (a *Answer) readLine(f []string) error {
	var err error
	need := func(n int) bool {
		if len(f) != n {
			err = fmt.Errorf("%d fields, want %d", len(f), n)
		}
		return err == nil
	}
	switch f[0] {
	case "end":
	case "error":
		if need(2) {
			a.Error, err = unhex(f[1])
		}
	case "pane":
		if need(3) {
			a.PaneID = f[1]
			a.PanePID, err = strconv.Atoi(f[2])
		}
	case "shell":
		if need(2) {
			a.Shell = f[1]
		}
	case "dir":
		if need(2) {
			a.ShellDir, err = unhex(f[1])
		}
	case "call":
		if need(4) {
			c := &Call{}
			var since int64
			since, err = strconv.ParseInt(f[1], 10, 64)
			c.Since = time.Unix(0, since)
			if err == nil {
				c.Queued, err = strconv.Atoi(f[2])
			}
			if err == nil {
				c.Call, err = unhex(f[3])
			}
			a.Call = c
		}
	case "running", "entry":
		var e *Entry
		if e, err = parseEntry(f[1:]); err == nil {
			if f[0] == "running" {
				a.Running = e
			} else {
				a.Entries = append(a.Entries, *e)
				a.Entry = &a.Entries[len(a.Entries)-1]
			}
		}
	case "size":
		if need(2) {
			a.Size, err = strconv.Atoi(f[1])
		}
	}
	// Lines of kinds a later version adds are skipped.
	return err
}

func parseEntry(f []string) (*Entry, error) {
	if len(f) != 12 {
		return nil, fmt.Errorf("an entry of %d fields", len(f))
	}
	var n [8]int64
	for i, j := range []int{0, 4, 5, 6, 7, 8, 9, 2} {
		v, err := strconv.ParseInt(f[j], 10, 64)
		if err != nil {
			return nil, err
		}
		n[i] = v
	}
	e := &Entry{ID: int(n[0]), Who: f[1], Running: n[7] == 1, Start: time.Unix(0, n[1]), DurationMS: n[3],
		ShellPID: int(n[4]), OutputBytes: n[5], OutputLeftOut: n[6]}
	if f[3] != "-" {
		s, err := strconv.Atoi(f[3])
		if err != nil {
			return nil, err
		}
		e.Status = &s
	}
	if n[2] != 0 {
		end := time.Unix(0, n[2])
		e.End = &end
	}
	var err error
	if e.Dir, err = unhex(f[10]); err != nil {
		return nil, err
	}
	e.Command, err = unhex(f[11])
	return e, err
}

func unhex(s string) (string, error) {
	digits, ok := strings.CutPrefix(s, "x")
	if !ok {
		return "", fmt.Errorf("%q is no hex field", s)
	}
	b, err := hex.DecodeString(digits)
	return string(b), err
}
