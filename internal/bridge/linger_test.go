package bridge

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// The lingering file says until when; one whose time passed (its tmux server died lingering)
// says nothing, so ptysend never refuses for a session that is gone.
func TestLingeringUntilTheFilesTimeOnly(t *testing.T) {
	b := Bridge{Name: "linger-test", RuntimeDir: t.TempDir()}
	if _, ok := b.LingeringUntil(); ok {
		t.Fatal("no file: not lingering")
	}
	write := func(end time.Time) {
		if err := os.WriteFile(b.lingerFile(), []byte(strconv.FormatInt(end.Unix(), 10)+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(time.Now().Add(time.Minute))
	if until, ok := b.LingeringUntil(); !ok || until.Before(time.Now()) {
		t.Fatalf("lingering for a minute: %v %v", until, ok)
	}
	write(time.Now().Add(-time.Hour))
	if _, ok := b.LingeringUntil(); ok {
		t.Fatal("a file whose time passed is no lingering")
	}
}
