package platform

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/creack/pty"
)

// started runs argv, killed and reaped when the test ends.
func started(t *testing.T, argv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

// inTerminal runs argv as a session leader with a new pseudo-terminal as
// its controlling terminal and standard files, as a pane's program runs.
func inTerminal(t *testing.T, argv ...string) *exec.Cmd { return inTerminalRead(t, true, argv...) }

// inTerminalRead is inTerminal; unless read, nobody reads what the
// terminal shows, as tmux does not while it is busy.
func inTerminalRead(t *testing.T, read bool, argv ...string) *exec.Cmd {
	t.Helper()
	cmd, ptmx := inTerminalWithMaster(t, argv...)
	if !read {
		return cmd
	}
	go func() { // the terminal's output must flow
		buf := make([]byte, 4096)
		for {
			if _, err := ptmx.Read(buf); err != nil {
				return
			}
		}
	}()
	return cmd
}

// inTerminalWithMaster is inTerminalRead, unread; ptmx types into the terminal.
func inTerminalWithMaster(t *testing.T, argv ...string) (cmd *exec.Cmd, ptmx *os.File) {
	t.Helper()
	cmd = exec.Command(argv[0], argv[1:]...)
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		ptmx.Close()
	})
	return cmd, ptmx
}

// eventually waits until cond holds; the guard only stops a hang.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
