package remote

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// Stopping a forwarded call. Killing the local ssh would leave the host's call running without
// its output, as no signal crosses ssh; instead the local ptysend sends the signal, by a second
// ssh over the master, to the host's ptysend, which stops its call as a local one does (Ctrl-C,
// then Ctrl-\) and exits 128+N, its output and status coming back over the first ssh.
//
// A forwarded call that can be stopped carries an id (CallFlag); the host's ptysend records
// its pid under it in its runtime directory (Register), and StopFlag signals that pid (Stop). A
// stop that comes before the record leaves a note the call reads once it has made its record.

// CallFlag and StopFlag open a forwarded command line: "CallFlag ID ARGS..." is a call that
// can be stopped by "StopFlag ID SIGNAL".
const (
	CallFlag = "--remote-call"
	StopFlag = "--remote-stop"
)

// callFile is the record of call id in dir; stopFile the note of a stop that came first.
func callFile(dir, id string) string { return filepath.Join(dir, "remote-"+id+".call") }
func stopFile(dir, id string) string { return filepath.Join(dir, "remote-"+id+".stop") }

// callRecord is the host ptysend's: its pid and start time (a pid may be reused).
type callRecord struct {
	PID   int   `json:"pid"`
	Start int64 `json:"start"`
}

// Register records this process as call id, so that Stop can signal it, and sends itself the
// signal of a stop that came first, once caught closes (the signals are caught: the stop is the
// call's, not the default death); the returned func removes the record.
func Register(dir, id string, caught <-chan struct{}) func() {
	if !markers.ID(id).Valid() {
		return func() {}
	}
	start, _ := platform.StartTime(os.Getpid())
	data, _ := json.Marshal(callRecord{os.Getpid(), start.UnixNano()})
	path := callFile(dir, id)
	if os.WriteFile(path+".tmp", data, 0o600) != nil || os.Rename(path+".tmp", path) != nil {
		return func() {}
	}
	if note, err := os.ReadFile(stopFile(dir, id)); err == nil {
		os.Remove(stopFile(dir, id))
		if n, err := strconv.Atoi(strings.TrimSpace(string(note))); err == nil {
			<-caught
			syscall.Kill(os.Getpid(), syscall.Signal(n))
		}
	}
	return func() { os.Remove(path) }
}

// Stop sends signal sig to the host's call id (on the host: ptysend StopFlag ID N), or leaves
// the note for a call that has not made its record yet.
func Stop(dir, id string, sig syscall.Signal) error {
	if !markers.ID(id).Valid() {
		return fmt.Errorf("%s: invalid call id %q", StopFlag, id)
	}
	SweepStops(dir)
	if stopRecorded(dir, id, sig) {
		return nil
	}
	if err := os.WriteFile(stopFile(dir, id), []byte(strconv.Itoa(int(sig))), 0o600); err != nil {
		return err
	}
	// The call may have made its record, and missed the note, meanwhile.
	if stopRecorded(dir, id, sig) {
		os.Remove(stopFile(dir, id))
	}
	return nil
}

// stopRecorded signals the call recorded under id, if it still runs.
func stopRecorded(dir, id string, sig syscall.Signal) bool {
	data, err := os.ReadFile(callFile(dir, id))
	var rec callRecord
	if err != nil || json.Unmarshal(data, &rec) != nil || rec.PID <= 0 {
		return false
	}
	// StartTime is the uptime's, read at a slightly different moment each time: to a second.
	if start, err := platform.StartTime(rec.PID); err != nil || (start.Sub(time.Unix(0, rec.Start))).Abs() > time.Second {
		return true // it ended (or it is another process now): nothing to stop
	}
	syscall.Kill(rec.PID, sig)
	return true
}

// SweepStops removes what a day old: the notes of stops of calls that never came, the records
// of calls killed with SIGKILL.
func SweepStops(dir string) {
	notes, _ := filepath.Glob(filepath.Join(dir, "remote-*.stop"))
	calls, _ := filepath.Glob(filepath.Join(dir, "remote-*.call"))
	for _, n := range append(notes, calls...) {
		if fi, err := os.Stat(n); err == nil && time.Since(fi.ModTime()) > 24*time.Hour {
			os.Remove(n)
		}
	}
}
