package pane

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

type REPLRecord struct {
	Command string `json:"command"`
	Program string `json:"program"`
	// PID leads the REPL's process group; ShellPID runs it (-1 far).
	PID          int    `json:"pid"`
	ShellPID     int    `json:"shell_pid"`
	TTY          string `json:"tty"` // the pane's: its mode tells when a line editor reads
	Prompt       string `json:"prompt"`
	Continuation string `json:"continuation,omitempty"`
	// ID is the wrapper's: its END, printed when the REPL exits, reports a death without polling.
	ID     markers.ID `json:"id"`
	Script string     `json:"script,omitempty"`
	View   *LineView  `json:"view,omitempty"` // the cursor line as the last call left it
	// Far: PID is the carrier's, Carrier its platform.ExecImage.
	Far     bool   `json:"far,omitempty"`
	Carrier string `json:"carrier,omitempty"`
	// PromptMode is the terminal's mode when the REPL first waited at its prompt (see WaitsAtPrompt).
	PromptMode string `json:"prompt_mode,omitempty"`
}

// LineView is a REPL's cursor line as a call left it, trusted at the same relay and stream offset.
type LineView struct {
	Relay  string `json:"relay"`
	Offset int64  `json:"offset"`
	Cells  string `json:"cells"` // the line, trailing blanks included
	Col    int    `json:"col"`
}

func LoadREPL(b bridge.Bridge) *REPLRecord {
	var r REPLRecord
	if !loadJSON(b.File(".repl.json"), &r) || !r.ID.Valid() {
		return nil
	}
	return &r
}

func SaveREPL(b bridge.Bridge, r *REPLRecord) error { return saveJSON(b.File(".repl.json"), r) }

func ClearREPL(b bridge.Bridge, r *REPLRecord) {
	os.Remove(b.File(".repl.json"))
	if r != nil && r.Script != "" {
		os.Remove(r.Script)
	}
}

// InForeground: not exited, suspended or replaced (far: the carrier leads).
func (r *REPLRecord) InForeground(panePID int) bool {
	fg, err := platform.ForegroundPID(panePID)
	return err == nil && fg == r.PID && (!r.Far || platform.ExecImage(fg) == r.Carrier)
}

// WaitsAtPrompt reports whether the REPL's process pid sleeps until tty has input, as it does at
// its prompt. Where the OS does not tell a read of the terminal from any other sleep, the terminal
// must also be in the mode it had at the REPL's first prompt: python's line editor leaves it cooked
// while an evaluation sleeps, so prompt-shaped output then is not taken for the prompt.
func (r *REPLRecord) WaitsAtPrompt(pid int, tty *os.File) bool {
	return platform.WaitsAtPrompt(pid, tty) && (platform.SeesReads || r.PromptMode == "" || r.PromptMode == PromptModeOf(tty))
}

// PromptModeOf is what REPLRecord.PromptMode records: "editor" for a line editor's mode, else "cooked".
func PromptModeOf(tty *os.File) string {
	if platform.EditsLines(tty) {
		return "editor"
	}
	return "cooked"
}

func (r *REPLRecord) PromptRE() *regexp.Regexp { return regexp.MustCompile(r.Prompt) }

func (r *REPLRecord) ContinuationRE() *regexp.Regexp {
	if r.Continuation == "" {
		return nil
	}
	return regexp.MustCompile(r.Continuation)
}

// PromptLine is the cursor line of a REPL at its prompt, and the column
// where an input's echo starts. Saved: from the last call's view, not tmux.
type PromptLine struct {
	Line  string
	Col   int
	Saved bool
}

func (s *State) readREPL(b bridge.Bridge, want Want) (settle bool, err error) {
	r := s.REPL
	if r == nil {
		return false, s.noREPL(b)
	}
	s.Kind = REPLState
	line, col, saved := "", 0, false
	if v := r.View; v != nil && v.Relay == s.View.Relay && v.Offset == s.View.Offset {
		line, col, saved = v.Cells, v.Col, true
	} else if !s.CopyMode {
		scr, err := tmux.Capture(s.View.PaneID)
		if err != nil {
			return false, failure.From(err)
		}
		if scr.Alternate && !scr.InMode {
			return s.busy(s.Foreground.Name+" (a full-screen program started from the REPL "+r.Program+")", nil)
		}
		line, col, s.CopyMode = scr.CursorRow(), scr.CursorX, scr.InMode
	}
	if s.CopyMode {
		s.Kind, s.Refusal = CopyMode, CopyModeError
		return false, nil
	}
	start, end := PromptIn(r.PromptRE(), line)
	if start > 0 {
		// Output before the prompt (no final newline) was an earlier call's; the echo starts at it.
		line, col = line[start:], col-utf8.RuneCountInString(line[:start])
		end, saved = end-start, false
	}
	// A far REPL cannot be seen: its prompt on the screen is all there is.
	waits := start >= 0 && (r.Far || r.waitsAtPrompt(s.Foreground.PID))
	switch {
	case !waits && want == CloseREPL:
		return false, nil // closing a busy REPL interrupts it first
	case !waits:
		s.Refusal = refusal(fmt.Sprintf("the REPL %s is busy (not waiting at its prompt), so nothing was typed; the cursor line is %q", r.Program, strings.TrimRight(line, " ")),
			"wait for it and retry, ask the user what it is doing, or stop it with ptysend --repl-close")
		return true, nil
	case strings.TrimSpace(line[end:]) != "":
		s.HalfTyped = true
		s.Refusal = refusal(fmt.Sprintf("the user is typing at the %s prompt (%q), so nothing was typed", r.Program, strings.TrimRight(line, " ")),
			"ask the user to finish or clear their line in the ptybridge terminal, then retry")
		return true, nil
	}
	s.Prompt = &PromptLine{Line: line, Col: col, Saved: saved}
	return false, nil
}

func (r *REPLRecord) waitsAtPrompt(pid int) bool {
	tty := platform.OpenTTY(r.TTY)
	if tty == nil {
		return false
	}
	defer tty.Close()
	return r.WaitsAtPrompt(pid, tty)
}

// noREPL: none was started, it is suspended (that clears by itself), or it is gone (forgotten now).
func (s *State) noREPL(b bridge.Bridge) error {
	r := LoadREPL(b)
	switch {
	case r == nil:
		return ErrNoREPL
	case !r.Far && platform.Stopped(r.PID):
		s.Kind, s.Refusal = Busy, refusal(fmt.Sprintf("the REPL %s (pid %d) is suspended (Ctrl-Z), so nothing was typed", r.Program, r.PID),
			"ask the user to resume it with fg in the ptybridge terminal, then retry")
		return nil
	}
	ClearREPL(b, r)
	return &REPLGone{r}
}

var ErrNoREPL = &failure.Error{
	Msg:  "no REPL is running in the shared terminal",
	Hint: "start one first, e.g. ptysend --repl-start python3 (or node, psql, irb, 'nix repl', ghci, lua, sqlite3; others with --prompt REGEX), then ptysend --repl-eval EXPR",
}

type REPLGone struct{ R *REPLRecord }

func (e *REPLGone) Error() string {
	return fmt.Sprintf("the REPL %s (pid %d) is no longer running in the shared terminal: it exited or was killed since the last call", e.R.Program, e.R.PID)
}

func (e *REPLGone) Hint() string {
	return fmt.Sprintf("its state (variables, definitions) is gone; start it again with ptysend --repl-start %s; ptysend -- CMD runs shell commands again",
		markers.QuotePOSIX(e.R.Command))
}

// PromptIn finds the prompt's span on a cursor line, or -1, -1: at its start (the human
// may have typed after it), or ending the line (after output with no final newline).
func PromptIn(re *regexp.Regexp, line string) (int, int) {
	if loc := re.FindStringIndex(line); loc != nil && loc[0] == 0 {
		return 0, loc[1]
	}
	trimmed := strings.TrimRight(line, " ")
	for i := 1; i < len(line); i++ {
		if loc := re.FindStringIndex(line[i:]); loc != nil && loc[0] == 0 && i+loc[1] >= len(trimmed) {
			return i, i + loc[1]
		}
	}
	return -1, -1
}

// ScriptsInUse reports whether a file in runtime directory dir is a running REPL's wrapper script.
func ScriptsInUse(dir string) func(name string) bool {
	scripts := sync.OnceValue(func() map[string]bool {
		in := map[string]bool{}
		records, _ := filepath.Glob(filepath.Join(dir, "*.repl.json"))
		for _, path := range records {
			var r REPLRecord
			if loadJSON(path, &r) && r.Script != "" {
				in[filepath.Base(r.Script)] = true
			}
		}
		return in
	})
	return func(name string) bool { return scripts()[name] }
}

// saveJSON writes through a rename: a reader never sees half a record.
func saveJSON(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// loadJSON removes a torn record.
func loadJSON(path string, v any) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	if json.Unmarshal(data, v) != nil {
		os.Remove(path)
		return false
	}
	return true
}
