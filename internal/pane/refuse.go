package pane

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// free: an empty prompt is idle, unless keys wait in the pane's terminal input queue or copy mode is on.
func (s *State) free() (settle bool, err error) {
	if platform.TypedAhead(s.View.PanePID) {
		return s.halfTyped()
	}
	return s.idle()
}

func (s *State) idle() (settle bool, err error) {
	s.Kind = Idle
	if s.CopyMode {
		s.Kind, s.Refusal = CopyMode, CopyModeError
	}
	return false, nil
}

func (s *State) halfTyped() (settle bool, err error) {
	s.Kind, s.Refusal, s.HalfTyped = HalfTyped, HalfTypedError, true
	return true, nil
}

func (s *State) viCommand() (settle bool, err error) {
	s.Kind, s.Refusal = ViCommand, ViCommandError
	return true, nil
}

func (s *State) shellBusy() (settle bool, err error) {
	s.Kind, s.Refusal = Busy, refusal(fmt.Sprintf("the shared terminal is busy: its shell (%s) is running a command of the user's, so nothing was typed", s.Shell.Name),
		"ask the user to let it finish, or to press Ctrl-C in the ptybridge terminal, then retry")
	return true, nil
}

// busy: a short-lived program (a prompt framework's helper) may be gone in a moment.
func (s *State) busy(program string, args []string) (settle bool, err error) {
	s.Kind, s.Refusal = Busy, refusal(fmt.Sprintf("the shared terminal is busy: %q is running in it, so nothing was typed", program),
		busyHint(program, args))
	return true, nil
}

func shortCommand(args []string) string {
	s := strings.Join(args, " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// refusal is a refusal that clears by itself (exit 75).
func refusal(msg, hint string) error {
	return &failure.Error{Code: failure.ExitBusy, Msg: msg, Hint: hint}
}

// HalfTypedError: the human's line must never be spliced into.
var HalfTypedError = refusal("the user has typed at the shared terminal's prompt and not pressed Enter (or runs a command of theirs); "+
	"nothing was typed, so their input stays intact",
	"ask the user to finish their line (Enter) or clear it (Ctrl-U) in the ptybridge terminal, then retry")

// ViCommandError: in vi command mode a typed line is commands (. repeats the last change, /
// searches the history and Enter runs what it found), not text.
var ViCommandError = refusal("the line editor at the shared terminal's prompt is in vi command mode (the user pressed Esc there), "+
	"where typed keys are commands, so nothing was typed",
	"ask the user to press i in the ptybridge terminal (back to insert mode), or to run or clear their line, then retry")

// CopyModeError: keys sent now would drift the human's scrolled view.
var CopyModeError = refusal("the user is scrolling in the shared terminal (tmux copy mode), so nothing was typed",
	"ask the user to leave copy mode (press q in the ptybridge terminal), then retry")

// A busy pane's hint says how the human leaves the program: Ctrl-C stops no pager or editor (less
// ignores it), so it names the program's own key where well known, else only "quit it".
const (
	keyCtrlC = "Ctrl-C"
	keyQ     = "press q there"
)

var quitKeys = map[string]string{
	// Pagers, and programs that use one.
	"less": keyQ, "more": keyQ, "most": keyQ, "pg": keyQ, "man": keyQ,
	"git": "press q there if it shows a pager, else Ctrl-C",
	// Editors.
	"vim": ":q", "vi": ":q", "nvim": ":q", "view": ":q", "vimdiff": ":q", "ex": ":q",
	"nano": "press Ctrl-X there", "pico": "press Ctrl-X there",
	"emacs": "press Ctrl-X Ctrl-C there",
	// Full-screen monitors.
	"top": keyQ, "htop": keyQ, "btop": keyQ, "atop": keyQ, "iotop": keyQ, "nmon": keyQ,
	// Interpreters and clients: end of input leaves them.
	"python": "repl", "node": "repl", "irb": "repl", "ghci": "repl", "lua": "repl",
	"psql": "press Ctrl-D (or type \\q) there", "mysql": "press Ctrl-D (or type exit) there",
	"sqlite": "press Ctrl-D (or type .quit) there",
	// Login sessions, and commands that run until stopped or take long.
	"ssh": "type exit (or press Ctrl-D) there", "su": "type exit (or press Ctrl-D) there",
	"sleep": keyCtrlC, "tail": keyCtrlC, "ping": keyCtrlC, "watch": keyCtrlC, "yes": keyCtrlC,
	"cat": keyCtrlC, "make": keyCtrlC, "find": keyCtrlC, "grep": keyCtrlC, "dd": keyCtrlC,
	"curl": keyCtrlC, "wget": keyCtrlC, "rsync": keyCtrlC, "cp": keyCtrlC,
	// A shell here runs a script: an interactive one is ptysend's.
	"sh": keyCtrlC, "bash": keyCtrlC, "dash": keyCtrlC, "zsh": keyCtrlC, "fish": keyCtrlC, "ksh": keyCtrlC,
}

func busyHint(program string, args []string) string {
	switch key := quitKey(program, args); key {
	case "":
		return fmt.Sprintf("ask the user to let %s finish, or to quit it, in the ptybridge terminal, then retry", program)
	case keyCtrlC:
		return fmt.Sprintf("ask the user to let %s finish, or to stop it with Ctrl-C in the ptybridge terminal, then retry", program)
	case ":q":
		return fmt.Sprintf("ask the user to quit %s in the ptybridge terminal (type :q and Enter there; :wq saves first), then retry", program)
	default:
		return fmt.Sprintf("ask the user to quit %s in the ptybridge terminal (%s), then retry", program, key)
	}
}

func quitKey(program string, args []string) string {
	key := quitKeys[programKey(program)]
	if key != "repl" {
		return key
	}
	// python3 and its like run a script as often as a REPL.
	for _, a := range args[min(1, len(args)):] {
		if a == "-i" {
			break
		}
		if a == "-" || !strings.HasPrefix(a, "-") || a == "-c" || a == "-m" || a == "-e" {
			return keyCtrlC
		}
	}
	return "press Ctrl-D there"
}

func isInterpreter(program string, args []string) bool {
	return quitKeys[programKey(program)] == "repl" && quitKey(program, args) != keyCtrlC
}

// programKey strips variant and version: vim.basic is vim, python3.11 python, sqlite3 sqlite.
func programKey(program string) string {
	name, _, _ := strings.Cut(program, ".")
	return strings.TrimRight(name, "0123456789")
}

// --wait-free: after a refusal that clears by itself (exit 75), a FreeWaiter waits, without holding
// the pane, until it may have changed: a program in the way until it exits (the kernel says so at
// once) or another takes the foreground (Ctrl-Z stops one without ending it); copy mode until the
// bridge's record of it ends; anything else (a half-typed line, a busy REPL) a recheck away, as the
// next attempt follows the shell's events for up to settleLimit.
const recheck = 100 * time.Millisecond

type FreeWaiter struct {
	bridge   bridge.Bridge
	limit    time.Duration
	deadline time.Time
	stderr   io.Writer
	said     map[string]bool
}

func NewFreeWaiter(b bridge.Bridge, limit time.Duration, stderr io.Writer) *FreeWaiter {
	return &FreeWaiter{bridge: b, limit: limit, deadline: time.Now().Add(limit), stderr: stderr, said: map[string]bool{}}
}

// Again, after an attempt that typed nothing (st: its state, or nil), waits if it may; true: retry.
func (w *FreeWaiter) Again(ctx context.Context, st *State, err error) bool {
	if w.limit <= 0 || err == nil || failure.From(err).Code != failure.ExitBusy || !time.Now().Before(w.deadline) || ctx.Err() != nil {
		return false
	}
	if msg := failure.From(err).Msg; !w.said[msg] {
		w.said[msg] = true
		fmt.Fprintf(w.stderr, "ptysend: waiting up to %v (--wait-free) for the shared terminal to be free: %s\n", w.limit, msg)
	}
	w.wait(ctx, st)
	return time.Now().Before(w.deadline) && ctx.Err() == nil
}

// Final is the error once Again said no: a refusal says it outlasted --wait-free, or suggests it.
func (w *FreeWaiter) Final(err error) error {
	if err == nil || failure.From(err).Code != failure.ExitBusy {
		return err
	}
	refusal := *failure.From(err)
	if w.limit > 0 {
		refusal.Msg += fmt.Sprintf(" (still so after waiting %v with --wait-free)", w.limit)
	} else if refusal.Hint != "" {
		refusal.Hint += "; or rerun with --wait-free DURATION (e.g. --wait-free 2m) to have ptysend wait for it"
	}
	return &refusal
}

func (w *FreeWaiter) wait(ctx context.Context, st *State) {
	ctx, cancel := context.WithDeadline(ctx, w.deadline)
	defer cancel()
	tick := time.NewTicker(recheck)
	defer tick.Stop()
	var ended <-chan struct{}
	if st != nil && st.Kind == Busy && st.Far == nil && (st.Shell == nil || st.Shell.PID != st.Foreground.PID) {
		ended = platform.WatchExit(ctx, st.Foreground.PID)
	}
	for {
		select {
		case <-ended:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		switch {
		case st != nil && st.CopyMode:
			if !w.bridge.InCopyMode(st.View.PaneID) {
				return
			}
		case ended != nil:
			if fg, err := platform.ForegroundPID(st.View.PanePID); err != nil || fg != st.Foreground.PID {
				return
			}
		default:
			return
		}
	}
}
