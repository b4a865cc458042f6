package session

// Exit codes of ptysend for outcomes that are not the command's own.
const (
	ExitTimeout = 124 // a timeout fired (as coreutils timeout)
	ExitFailure = 125 // ptysend itself failed
)

// Error is a failure with a line that tells the agent what to do.
type Error struct {
	Msg  string
	Hint string
	// Code is the exit code; zero means ExitFailure.
	Code int
	// Verbatim, when set, is printed instead of Msg and Hint.
	Verbatim string
}

func (e *Error) Error() string { return e.Msg }

// ExitCode is the process exit code for this failure.
func (e *Error) ExitCode() int {
	if e.Code == 0 {
		return ExitFailure
	}
	return e.Code
}
