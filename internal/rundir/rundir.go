// Package rundir owns the private runtime directory of the relay's socket and the per-call files:
// where it is, that no other user can have planted or read it, and which files are leftovers. It
// creates nothing inside.
package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// UserName is $USER, or the current user's name from the OS.
func UserName() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	if u := platform.UserName(os.Getuid()); u != "" {
		return u
	}
	return strconv.Itoa(os.Getuid())
}

// Path is where private runtime files live: PTYBRIDGE_RUNTIME_DIR, else $XDG_RUNTIME_DIR/ptybridge,
// else $TMPDIR/ptybridge-<user>; but either of the last two only if it leaves room for the
// sockets' names (macOS's $TMPDIR, /var/folders/.../T/, is long): else /tmp/ptybridge-<user>.
func Path() string {
	if d := os.Getenv("PTYBRIDGE_RUNTIME_DIR"); d != "" {
		return d // chosen: a socket path too long says so (platform.ListenUnix)
	}
	own := "ptybridge-" + UserName()
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && roomForSockets(filepath.Join(d, "ptybridge")) {
		return filepath.Join(d, "ptybridge")
	}
	if d := filepath.Join(os.TempDir(), own); roomForSockets(d) {
		return d
	}
	return filepath.Join("/tmp", own)
}

// socketNameRoom is what the runtime directory must leave of a socket path for the sockets'
// names: a call's "<16 hex digits>.query.sock" is 27 bytes, a session's or a job's more.
const socketNameRoom = 48

func roomForSockets(dir string) bool {
	return len(dir)+len("/")+socketNameRoom <= platform.MaxSocketPath
}

// Ensure creates the runtime directory, mode 0700, refusing one another user could plant or read.
func Ensure(dir string) error {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(dir), err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("creating the runtime directory %s: %w", dir, err)
	}
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return fmt.Errorf("checking the runtime directory: %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return unsafeDir(dir, "it is a symbolic link")
	case !fi.IsDir():
		return unsafeDir(dir, "it is not a directory")
	}
	if uid, ok := platform.FileOwner(fi); ok && uid != os.Geteuid() {
		return unsafeDir(dir, fmt.Sprintf("it is owned by uid %d, not by you (uid %d)", uid, os.Geteuid()))
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return unsafeDir(dir, fmt.Sprintf("it has mode %04o, so other users can reach it", perm))
	}
	return nil
}

// unsafeDir is the failure of a runtime directory that is not private to us.
func unsafeDir(dir, reason string) error {
	return &failure.Error{
		Msg:  fmt.Sprintf("the runtime directory %s is not private: %s", dir, reason),
		Hint: fmt.Sprintf("it must be a directory owned by you with mode 0700; if you did not create it, someone else may have: remove it (rm -r %s) or set PTYBRIDGE_RUNTIME_DIR to a private directory", dir),
	}
}

// SocketPath is the relay's socket for a session of any name.
func SocketPath(dir, sessionName string) string {
	var b strings.Builder
	for _, c := range []byte(sessionName) {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return filepath.Join(dir, b.String()+".sock")
}

// Per-call files are named after the call's id (16 hex digits). A ptysend killed by SIGKILL leaves
// its own: each call removes those of any bridge whose id no process claims, with a lock on one
// byte of the directory that the kernel drops when the process ends.

var claimed *platform.ByteLocks // open until the process exits

// Claim marks id as a live call's, for as long as this process runs.
func Claim(dir, id string) error {
	var err error
	if claimed == nil {
		if claimed, err = platform.OpenByteLocks(dir); err != nil {
			return err
		}
	}
	return claimed.Share(idByte(id))
}

// Release ends the claim of id once its files are gone: a long-lived process (the MCP server)
// makes many calls, and without OFD locks each claim holds a descriptor and a lock file.
func Release(id string) {
	if claimed != nil && id != "" {
		claimed.Release(idByte(id))
	}
}

// SweepLeftovers removes gone calls' per-call files, but none keep(name) keeps (a running REPL's).
func SweepLeftovers(dir string, keep func(name string) bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	var locks *platform.ByteLocks // another open than claimed's, to see our own claims
	for _, e := range entries {
		name := e.Name()
		id, ok := callID(name)
		if !ok {
			continue
		}
		if locks == nil {
			if locks, err = platform.OpenByteLocks(dir); err != nil {
				return
			}
			defer locks.Close()
			defer locks.Prune() // what gone calls' locks left (a file each, without OFD locks)
		}
		if !locks.Held(idByte(id)) && !keep(name) { // in doubt, it is held: no leftover
			os.Remove(filepath.Join(dir, name))
		}
	}
}

// callID is a per-call file's id; the bridge's own files, named after the session, have other exts.
func callID(name string) (string, bool) {
	id, ext, ok := strings.Cut(name, ".")
	if !ok || len(id) != 16 || strings.Trim(id, "0123456789abcdef") != "" {
		return "", false
	}
	switch ext {
	case "sock", "query.sock", "mode", "hooked", "repl.json", "repl.json.tmp", "pane", "pane.tmp", "remote", "remote.tmp":
		return "", false
	}
	if strings.HasPrefix(ext, "job-") || strings.HasPrefix(ext, "spare") { // a job's keeper, a spare window's files (internal/jobs)
		return "", false
	}
	return id, true
}

func idByte(id string) int64 {
	n, _ := strconv.ParseUint(id, 16, 64)
	return int64(n >> 1)
}
