package repl

import "github.com/ptybridge/ptybridge/internal/bridge"

// Started is the REPL that --repl-start started, as ptysend --status
// shows it.
type Started struct {
	Program, Command string
	// PID leads the REPL's process group; ShellPID is the shell that runs it.
	PID, ShellPID int
}

// Running is the REPL started with --repl-start that leads the
// foreground of the pane now, if any. It only reads.
func Running(b bridge.Bridge, panePID int) (Started, bool) {
	st, err := loadREPL(b)
	if err != nil || st == nil || st.PID == 0 || !st.inForeground(panePID) {
		return Started{}, false
	}
	return Started{Program: st.Program, Command: st.Command, PID: st.PID, ShellPID: st.ShellPID}, true
}
