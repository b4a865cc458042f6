package repl

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// replState is the REPL running in the shared pane, kept between ptysend
// calls in the private runtime directory.
type replState struct {
	// Command is what --repl-start ran; Program names it for messages.
	Command string `json:"command"`
	Program string `json:"program"`
	// PID leads the REPL's process group, in the terminal's foreground
	// while the REPL runs; ShellPID is the shell that runs it.
	PID      int `json:"pid"`
	ShellPID int `json:"shell_pid"`
	// TTY is the pane's terminal, whose mode tells when a line editor reads.
	TTY          string `json:"tty"`
	Prompt       string `json:"prompt"`
	Continuation string `json:"continuation,omitempty"`
	// ID is the wrapper's: its END marker, printed by the shell when the
	// REPL exits, is how ptysend learns of a death without polling.
	ID     markers.ID `json:"id"`
	Script string     `json:"script"`
	// View is the cursor line as the last call left it (replview.go).
	View *replView `json:"view,omitempty"`
	// Far: the REPL runs in a far shell (far.go); PID is then the
	// carrier's (ssh, su...), Carrier its platform.ExecImage.
	Far     bool   `json:"far,omitempty"`
	Carrier string `json:"carrier,omitempty"`
}

// loadREPL reads the state, nil when no REPL was started.
func loadREPL(b bridge.Bridge) (*replState, error) {
	data, err := os.ReadFile(b.File(".repl.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var st replState
	if err := json.Unmarshal(data, &st); err != nil || !st.ID.Valid() {
		// A torn or foreign file describes no REPL we can drive.
		os.Remove(b.File(".repl.json"))
		return nil, nil
	}
	return &st, nil
}

func saveREPL(b bridge.Bridge, st *replState) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp := b.File(".repl.json") + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, b.File(".repl.json"))
}

// clearREPL forgets the REPL and removes its wrapper script.
func clearREPL(b bridge.Bridge, st *replState) {
	os.Remove(b.File(".repl.json"))
	if st != nil && st.Script != "" {
		os.Remove(st.Script)
	}
}

// inForeground reports whether the REPL still leads the terminal's
// foreground: it has not exited, been suspended or replaced.
func (st *replState) inForeground(panePID int) bool {
	fg, err := platform.ForegroundPID(panePID)
	if st.Far { // the carrier still leads: the REPL's END has not come
		return err == nil && fg == st.PID && platform.ExecImage(fg) == st.Carrier
	}
	return err == nil && fg == st.PID
}

// BusyError is the refusal of `ptysend -- CMD` when IdleShell found the
// pane busy (busy): when the program in the way is our own REPL, the
// REPL's, which exits 125, not 75 (failure.ExitBusy), since it does not
// clear by itself: the agent has to close the REPL or evaluate in it.
// Else busy itself, marked with the program in the way for --wait-free.
func BusyError(b bridge.Bridge, panePID int, busy error) error {
	st, err := loadREPL(b)
	if err != nil || st == nil || !st.inForeground(panePID) {
		return pane.ProgramInTheWay(busy, panePID)
	}
	return &failure.Error{
		Msg: "the REPL " + st.Program + " started with --repl-start runs in the shared terminal, so the command was not typed",
		Hint: "evaluate in it with ptysend --repl-eval EXPR, or leave it with ptysend --repl-close " +
			"and then run the command",
	}
}

// ScriptsInUse reports, for a file name in the runtime directory dir,
// whether it is the wrapper script of a REPL that a bridge's state (any
// bridge sharing the directory) says is running: not a leftover. The
// states are read on the first question.
func ScriptsInUse(dir string) func(name string) bool {
	var scripts map[string]bool
	return func(name string) bool {
		if scripts == nil {
			scripts = map[string]bool{}
			states, _ := filepath.Glob(filepath.Join(dir, "*.repl.json"))
			for _, path := range states {
				var st replState
				if data, err := os.ReadFile(path); err == nil && json.Unmarshal(data, &st) == nil && st.Script != "" {
					scripts[filepath.Base(st.Script)] = true
				}
			}
		}
		return scripts[name]
	}
}
