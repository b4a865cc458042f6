package platform

import (
	"os"
	"testing"
	"time"
)

func TestStartTimeOfThisProcess(t *testing.T) {
	start, err := StartTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// The test binary started a moment ago; the clock ticks are 10 ms.
	if age := time.Since(start); age < -50*time.Millisecond || age > 10*time.Minute {
		t.Fatalf("started %v ago?", age)
	}
	if uid, err := Owner(os.Getpid()); err != nil || uid != os.Geteuid() {
		t.Fatalf("owner: %d, %v", uid, err)
	}
	if wd, _ := os.Getwd(); Cwd(os.Getpid()) != wd {
		t.Fatalf("cwd: %q, want %q", Cwd(os.Getpid()), wd)
	}
	if SameTerminal(os.Getpid(), 1<<30) {
		t.Fatal("no process has pid 2^30")
	}
}
