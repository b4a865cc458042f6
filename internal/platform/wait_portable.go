//go:build !linux || portable

package platform

import "os"

// Whether a program waits for input on its terminal, from what every OS tells (macOS has no wait
// channel and no /proc/PID/syscall; the tag portable makes Linux use this too, to test it):
//   - no thread of the process runs (sleepingThreads);
//   - its process group is the terminal's foreground: a background read would stop it;
//   - nothing it could read waits in the terminal's queue (a complete line, when canonical);
//   - the terminal's mode: a line editor's is non-canonical, a password prompt's canonical
//     without echo.
//
// Weaker than Linux's procfs, which also tells what a thread sleeps in (a read of the terminal,
// a poll, a timer, a socket), because:
//   - a program asleep for another reason (a timer, a socket, a child) in the foreground of a
//     cooked terminal looks like a cooked read (a shell's builtin read, a REPL without a line
//     editor): WaitsForInput says neither waits (a sleep must not pause --timeout),
//     WaitsAtPrompt, which a prompt on the screen backs, that both do;
//   - a line editor's mode stays on while an event loop awaits a timer (node), so
//     WaitsOnlyForInput trusts that mode only in a process of one thread;
//   - a process we may not inspect (sudo's, on macOS) waits only in a password prompt's mode.

// SeesReads: the OS tells a read of the terminal from any other sleep. Not here: see above.
const SeesReads = false

// WaitsForInput reports whether process pid sleeps until tty has input (as far as the OS tells):
// a line editor's or a password prompt's; never a cooked read, which looks like any sleep.
func WaitsForInput(pid int, tty *os.File) bool {
	canonical, echo, ok := asleepAtTerminal(pid, tty)
	return ok && (!canonical || !echo)
}

// WaitsAtPrompt is WaitsForInput for a program whose prompt shows (a REPL's, a shell's): that
// makes a sleep in a cooked terminal a cooked read.
func WaitsAtPrompt(pid int, tty *os.File) bool {
	_, _, ok := asleepAtTerminal(pid, tty)
	return ok
}

// asleepAtTerminal: pid sleeps in the foreground of tty, which holds nothing for it to read; the
// terminal's mode. A process hidden from us (a set-uid program) counts only in a password prompt.
func asleepAtTerminal(pid int, tty *os.File) (canonical, echo, ok bool) {
	canonical, echo, _, ok = termMode(tty)
	if !ok || !inForeground(pid) || Unread(tty) > 0 {
		return canonical, echo, false
	}
	asleep, _, known := sleepingThreads(pid)
	if !known {
		return canonical, echo, canonical && !echo
	}
	return canonical, echo, asleep
}

// WaitsOnlyForInput is a stricter WaitsForInput, for when no prompt backs it up: a line editor's
// mode, in a process of one thread (an event loop awaits anything there); never a cooked read.
func WaitsOnlyForInput(pid int, tty *os.File) bool {
	asleep, threads, known := sleepingThreads(pid)
	return known && asleep && threads == 1 && EditsLines(tty) && inForeground(pid) && Unread(tty) == 0
}

// AtLineEditor: the shell waits for keys in its line editor: asleep, the terminal non-canonical.
func AtLineEditor(shellPID int) bool {
	tty := OpenTTY(TTYOf(shellPID))
	if tty == nil {
		return false
	}
	defer tty.Close()
	asleep, _, known := sleepingThreads(shellPID)
	return known && asleep && EditsLines(tty) && inForeground(shellPID)
}

// inForeground: pid's process group is the foreground one of its terminal.
func inForeground(pid int) bool {
	p, err := ReadProc(pid)
	return err == nil && p.TPGID > 0 && p.PGID == p.TPGID
}
