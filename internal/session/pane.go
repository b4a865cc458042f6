package session

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// ForegroundPID is the foreground process group of the pane's terminal
// (tpgid, field 8 of /proc/PID/stat of the pane's process). It equals a
// shell's pid while that shell waits at its prompt.
func ForegroundPID(panePID int) (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", panePID))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces and parentheses: fields start
	// after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", panePID)
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 6 {
		return 0, fmt.Errorf("unexpected /proc/%d/stat", panePID)
	}
	return strconv.Atoi(fields[5])
}

// processArgs is the command line of pid.
func processArgs(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
}

// processName is the program name of pid, as a human would call it.
func processName(pid int) string {
	if args := processArgs(pid); len(args) > 0 && args[0] != "" {
		return strings.TrimPrefix(filepath.Base(args[0]), "-")
	}
	return processComm(pid)
}

// idleShell finds the shell waiting at its prompt in the pane: the
// foreground process must be an interactive shell we can drive. Anything
// else (an editor, a pager, a running command, a script) means the pane
// is busy, and typing into it would type into that program.
//
// A program in the foreground may be short-lived (the shell's startup
// files, a prompt framework's helpers), so the verdict "busy" is only
// given when it lasts settleLimit; an idle shell answers at once.
func idleShell(panePID int) (int, markers.Shell, error) {
	deadline := time.Now().Add(settleLimit)
	for {
		pid, sh, err := idleShellNow(panePID)
		if err == nil || time.Now().After(deadline) {
			return pid, sh, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func idleShellNow(panePID int) (int, markers.Shell, error) {
	fg, err := ForegroundPID(panePID)
	if err != nil {
		return 0, 0, &Error{
			Msg:  "cannot inspect the shared terminal's processes: " + err.Error(),
			Hint: "ptysend needs /proc (Linux) and must run as the same user as ptybridge",
		}
	}
	name := processName(fg)
	sh, ok := markers.ShellFor(name)
	if ok && interactive(processArgs(fg)) {
		return fg, sh, nil
	}
	if foreign, ok := unsupportedShell(fg); ok {
		return 0, 0, unsupportedShellError(foreign)
	}
	return 0, 0, busyError(name)
}

// unsupportedShell names the shell we cannot drive that runs as pid, if
// any. A shell written in a scripting language (xonsh) runs as its
// interpreter, python3, but the kernel names the process after the script
// (comm), so both names are checked.
func unsupportedShell(pid int) (string, bool) {
	for _, name := range []string{processName(pid), processComm(pid)} {
		if markers.Unsupported(name) {
			return name, true
		}
	}
	return "", false
}

// processComm is the kernel's name of pid: the file it executed.
func processComm(pid int) string {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return strings.TrimSpace(string(b))
}

// interactive reports whether a shell's arguments leave it reading
// commands from the terminal: no script, no -c.
func interactive(args []string) bool {
	for _, a := range args[min(1, len(args)):] {
		if a == "-c" || !strings.HasPrefix(a, "-") {
			return false
		}
	}
	return true
}

func busyError(program string) error {
	return &Error{
		Msg:  fmt.Sprintf("the shared terminal is busy: %q is running in it, so nothing was typed", program),
		Hint: fmt.Sprintf("ask the user to finish or quit %s in the ptybridge terminal (or press Ctrl-C there), then retry", program),
	}
}

func unsupportedShellError(shell string) error {
	return &Error{
		Msg: fmt.Sprintf("the shared terminal runs %s, a shell ptysend cannot drive", shell),
		Hint: fmt.Sprintf("ptysend supports %s: ask the user to start one of them in the ptybridge terminal (e.g. type bash there), or to leave %s, then retry",
			markers.Supported, shell),
	}
}
