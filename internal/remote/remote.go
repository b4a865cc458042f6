// Package remote is what ptybridge and ptysend share of a remote bridge (ptybridge --host): a
// bridge whose session lives on another host, in the host's own ptybridge, reached over one ssh
// ControlMaster connection of the human's. Locally it is a small record in the runtime directory
// (the session's name, the ssh destination and command, the control socket, the host's ptysend);
// ptysend finds the record by the session's name and runs the host's ptysend over the master with
// the whole command line (Forward). Setting it up, copying the binaries to the host and attaching
// the human's terminal is ptybridge's (internal/remote/attach). It links no crypto: ptysend uses it.
package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/rundir"
)

// Record is a remote bridge as the local machine knows it.
type Record struct {
	Name string `json:"name"` // the session, here and on the host
	Dest string `json:"dest"` // [user@]host, as the human gave it
	// SSH is the ssh command and its options (PTYBRIDGE_SSH, else ssh), before any of ours.
	SSH []string `json:"ssh"`
	// Socket is the master's control socket, in the runtime directory.
	Socket string `json:"socket"`
	// Ptysend is the host's ptysend (in its cache directory, checksum verified by ptybridge --host).
	Ptysend string `json:"ptysend"`
	Linger  string `json:"linger"` // how long the host's session outlives the connection
}

// ext is the record's file's, beside the session's own files (rundir keeps it from sweeps).
const ext = ".remote"

// RecordPath is where the record of the session name lives in dir.
func RecordPath(dir, name string) string {
	return strings.TrimSuffix(rundir.SocketPath(dir, name), ".sock") + ext
}

// ControlSocket is the path of the master's control socket for session name: short, as a
// socket's path is limited to ~104 bytes (sun_path).
func ControlSocket(dir, name string) (string, error) {
	h := fnv.New32a()
	h.Write([]byte(name))
	path := filepath.Join(dir, fmt.Sprintf("ssh-%08x", h.Sum32()))
	if len(path) > 100 {
		return "", &failure.Error{
			Msg:  fmt.Sprintf("the path of the ssh control socket %s is too long for a unix socket (%d bytes)", path, len(path)),
			Hint: "set PTYBRIDGE_RUNTIME_DIR to a shorter private directory (such as /tmp/ptb-$USER)",
		}
	}
	return path, nil
}

// Find is the record of session name in dir; false when the session is no remote one (the
// common case costs one failed open).
func Find(dir, name string) (*Record, bool) {
	r, err := load(RecordPath(dir, name))
	if err != nil || r.Name != name || r.Socket == "" || len(r.SSH) == 0 {
		return nil, false
	}
	return &r, true
}

func load(path string) (Record, error) {
	var r Record
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &r)
	}
	return r, err
}

// Save writes the record, readable by its owner only.
func (r *Record) Save(dir string) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	path := RecordPath(dir, r.Name)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Remove forgets the record.
func (r *Record) Remove(dir string) {
	if err := os.Remove(RecordPath(dir, r.Name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(os.Stderr, "ptybridge: could not remove %s: %v\n", RecordPath(dir, r.Name), err)
	}
}

// List is every remote bridge recorded in dir, by name.
func List(dir string) []Record {
	entries, _ := os.ReadDir(dir)
	var list []Record
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if !strings.HasSuffix(path, ext) {
			continue
		}
		if r, err := load(path); err == nil && r.Name != "" && RecordPath(dir, r.Name) == path {
			list = append(list, r)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list
}

// Host is the destination's host, without the user.
func (r *Record) Host() string {
	if _, host, ok := strings.Cut(r.Dest, "@"); ok {
		return host
	}
	return r.Dest
}

// SessionName is the default session name for a destination: its host, made a valid name.
func SessionName(dest string) string {
	if _, host, ok := strings.Cut(dest, "@"); ok {
		dest = host
	}
	return strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			return c
		}
		return '-'
	}, dest)
}
