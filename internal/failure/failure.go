// Package failure is how ptybridge and ptysend fail: an *Error says what
// happened, what to do and ptysend's exit code (others may have a Hint).
package failure

import (
	"cmp"
	"context"
	"errors"
	"syscall"
)

// Exit codes of ptysend for outcomes that are not the command's own.
const (
	// ExitBusy (EX_TEMPFAIL, try again later): nothing was typed, as the user is
	// busy in the terminal (a program, a half-typed line, copy mode, a REPL).
	ExitBusy    = 75
	ExitRefused = 77  // EX_NOPERM: the user refused the command (--confirm)
	ExitTimeout = 124 // a timeout fired (as coreutils timeout)
	ExitFailure = 125 // ptysend itself failed
)

// Error is a failure with a line that tells the agent what to do.
type Error struct {
	Msg, Hint string
	Code      int    // the exit code; zero means ExitFailure
	Verbatim  string // when set, printed instead of Msg and Hint
}

func (e *Error) Error() string { return e.Msg }

func (e *Error) ExitCode() int { return cmp.Or(e.Code, ExitFailure) }

// From turns any error into an *Error that says what to do.
func From(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var h interface{ Hint() string } // an error of another package that knows what to do
	if errors.As(err, &h) {
		return &Error{Msg: err.Error(), Hint: h.Hint()}
	}
	return &Error{Msg: err.Error(), Hint: "this is unexpected: please report it with the command you ran"}
}

// StopSignal is the cause of a context cancelled by a signal to ptysend.
type StopSignal struct{ Signal syscall.Signal }

func (s StopSignal) Error() string { return "ptysend was stopped by " + s.Signal.String() }

// Stopped is the status and reason of a call its ctx stopped: 128+N for signal N, 130 if cancelled.
// StoppedHint follows an error of a call stopped from outside: a signal to ptysend, a cancelled
// MCP request.
const StoppedHint = "ptysend was stopped (Ctrl-C, a signal, a cancelled tool call); run it again if the work should finish"

func Stopped(ctx context.Context) (int, string) {
	var s StopSignal
	if errors.As(context.Cause(ctx), &s) {
		return 128 + int(s.Signal), s.Error()
	}
	return 128 + int(syscall.SIGINT), "the call was cancelled"
}
