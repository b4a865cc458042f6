package jobs

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
)

// MaxName bounds a job's name.
const MaxName = 40

// ValidName refuses a name that is not letters, digits, '-' and '_' (at
// most MaxName): it names the window, the keeper's socket and the job in
// every mode.
func ValidName(name string) error {
	ok := name != "" && len(name) <= MaxName
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			ok = false
		}
	}
	if !ok {
		return &failure.Error{
			Msg:  fmt.Sprintf("invalid job name %q", name),
			Hint: fmt.Sprintf("a job name is 1 to %d letters, digits, '-' and '_', e.g. --job dev-server", MaxName),
		}
	}
	return nil
}

// socketSuffix ends a keeper socket's name, after the bridge's own.
const socketPrefix, socketSuffix = ".job-", ".sock"

// SocketPath is the keeper's socket of the job name of bridge b.
func SocketPath(b bridge.Bridge, name string) string {
	return b.File(socketPrefix + name + socketSuffix)
}

// maxSocketPath is what a unix socket's address can hold.
const maxSocketPath = 107

// names lists the jobs of bridge b whose keeper sockets exist, sorted.
func names(b bridge.Bridge) []string {
	base := filepath.Base(b.File(socketPrefix))
	entries, err := os.ReadDir(b.RuntimeDir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), base)
		if !ok {
			continue
		}
		name, ok := strings.CutSuffix(rest, socketSuffix)
		if ok && ValidName(name) == nil {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
