// Package rundir owns the private runtime directory of the relay's socket
// and the per-call files: where it is, that no other user can have
// planted or read it, and which per-call files are leftovers. It creates
// nothing inside it.
package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ptybridge/ptybridge/internal/platform"
)

// UserName is $USER, or the current user's name from the OS.
func UserName() string {
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return strconv.Itoa(os.Getuid())
}

// Path is where private runtime files live: PTYBRIDGE_RUNTIME_DIR,
// else $XDG_RUNTIME_DIR/ptybridge, else /tmp/ptybridge-<user>.
func Path() string {
	if d := os.Getenv("PTYBRIDGE_RUNTIME_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "ptybridge")
	}
	return filepath.Join(os.TempDir(), "ptybridge-"+UserName())
}

// Ensure creates the runtime directory, mode 0700, and refuses one that
// another user could have planted or can read.
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
		return &UnsafeDirError{dir, "it is a symbolic link"}
	case !fi.IsDir():
		return &UnsafeDirError{dir, "it is not a directory"}
	}
	if uid, ok := platform.FileOwner(fi); ok && uid != os.Geteuid() {
		return &UnsafeDirError{dir, fmt.Sprintf("it is owned by uid %d, not by you (uid %d)", uid, os.Geteuid())}
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return &UnsafeDirError{dir, fmt.Sprintf("it has mode %04o, so other users can reach it", perm)}
	}
	return nil
}

// UnsafeDirError is a runtime directory that is not private to us.
type UnsafeDirError struct {
	Path   string
	Reason string
}

func (e *UnsafeDirError) Error() string {
	return fmt.Sprintf("the runtime directory %s is not private: %s", e.Path, e.Reason)
}

func (e *UnsafeDirError) Hint() string {
	return fmt.Sprintf("it must be a directory owned by you with mode 0700; if you did not create it, someone else may have: remove it (rm -r %s) or set PTYBRIDGE_RUNTIME_DIR to a private directory", e.Path)
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
