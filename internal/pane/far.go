package pane

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// Target is what ptysend types into: the local shell (ours to read in
// /proc, today's fast path), or a far shell behind a carrier.
type Target struct {
	Far bool
	// PID is the local shell, or the carrier (the foreground program:
	// ssh, sudo, or the far shell itself when it runs on our terminal
	// as another user or in another namespace).
	PID   int
	Shell markers.Shell // the local shell's syntax
	Name  string        // the program, for messages
}

// Locate finds what the pane's foreground program is: a local shell at
// its prompt, a carrier of a far shell, or anything else (busy). Like
// IdleShell it gives a short-lived program settleLimit to go.
func Locate(panePID int) (Target, error) {
	deadline := time.Now().Add(settleLimit)
	for {
		t, err := locateNow(panePID)
		if err == nil || time.Now().After(deadline) {
			return t, err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// LocateNow is Locate without waiting: what the pane runs this moment.
func LocateNow(panePID int) (Target, error) { return locateNow(panePID) }

func locateNow(panePID int) (Target, error) {
	fg, err := platform.ForegroundPID(panePID)
	if err != nil {
		return Target{}, &failure.Error{
			Msg:  "cannot inspect the shared terminal's processes: " + err.Error(),
			Hint: "ptysend needs /proc (Linux) and must run as the same user as ptybridge",
		}
	}
	name := platform.Name(fg)
	args := platform.Args(fg)
	if sh, ok := markers.ShellFor(name); ok && interactive(args) {
		if platform.SharesOurUserAndNamespaces(fg) {
			return Target{PID: fg, Shell: sh, Name: name}, nil
		}
		return Target{Far: true, PID: fg, Name: foreignVia(fg, name)}, nil
	}
	if foreign, ok := unsupportedShell(fg); ok {
		return Target{}, unsupportedShellError(foreign)
	}
	switch ClassifyCarrier(args) {
	case CarriesShell:
		if busy, busyArgs := carriedProgram(fg); busy != "" {
			return Target{}, busyError(busy, busyArgs)
		}
		return Target{Far: true, PID: fg, Name: name}, nil
	case CarriesCommand:
		return Target{}, busyError(shortCommand(args), args)
	}
	return Target{}, busyError(name, args)
}

// shortCommand names a carrier running a command: "ssh web1 make".
func shortCommand(args []string) string {
	s := strings.Join(args, " ")
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// carriedProgram follows a carrier's children, where /proc shows them
// (sudo, su --pty, unshare; not ssh's far end), down to the shell it
// carries, and names the program that shell runs in its foreground, or
// the program the carrier runs that is no shell. "" when all is idle as
// far as /proc can tell.
func carriedProgram(pid int) (string, []string) {
	cur := pid
	for range 8 {
		kids := platform.Children(cur)
		if len(kids) != 1 {
			return "", nil
		}
		child := kids[0]
		args := platform.Args(child)
		if _, ok := markers.ShellFor(platform.Name(child)); ok && interactive(args) {
			if fg, err := platform.ForegroundPID(child); err == nil && fg > 0 && fg != child {
				return platform.Name(fg), platform.Args(fg)
			}
			return "", nil
		}
		if ClassifyCarrier(args) == NotCarrier {
			return platform.Name(child), args
		}
		cur = child
	}
	return "", nil
}

// The far shell has no hooks yet: what the screen shows must say that it
// waits at its prompt before anything is typed, and ptysend must never
// type into a password prompt. These patterns read the cursor line.
var (
	secretPrompt = regexp.MustCompile(`(?i)(password|passphrase|passcode|\bpin\b|verification code|` +
		`\[y/n\]|\(y/n\)|yes/no|\(yes/no|continue\?|are you sure)`)
	// promptEnd: a shell prompt ends with one of these, then (usually)
	// the space before the cursor.
	promptEnd = regexp.MustCompile(`[$#%>❯»➜λ] ?$`)
	// notShellPrompt: a shell's continuation prompts (sh's "> ", zsh's
	// "dquote> ") and REPLs' (">>> ", "... ") are no place to type.
	notShellPrompt = regexp.MustCompile(`^\s*(>|>>|>>>|\.\.\.|[a-z]+( [a-z]+)*>|In \[\d+\]:)\s*$`)
)

// AsksSecret reports whether a cursor line asks for a password, a PIN or
// a yes/no answer.
func AsksSecret(line string) bool { return secretPrompt.MatchString(line) }

// CheckFarPrompt decides from the screen whether an unhooked far shell
// waits at an empty prompt.
func CheckFarPrompt(s tmux.Screen, carrier string) error {
	if s.InMode {
		return CopyModeError
	}
	if s.Alternate {
		return &failure.Error{
			Code: failure.ExitBusy,
			Msg:  fmt.Sprintf("the shared terminal shows a full-screen program (through %s), so nothing was typed", carrier),
			Hint: "ask the user to quit it in the ptybridge terminal, then retry",
		}
	}
	before := cellsBefore(s.Line, s.Col)
	after := strings.TrimSpace(cellsFrom(s.Line, s.Col))
	if secretPrompt.MatchString(before) {
		return &failure.Error{
			Code: failure.ExitBusy,
			Msg:  fmt.Sprintf("the shared terminal asks for something (%q), so nothing was typed", strings.TrimSpace(before)),
			Hint: "ask the user to answer it in the ptybridge terminal (a password is theirs to type), then retry",
		}
	}
	trimmed := strings.TrimRight(before, " ")
	if trimmed == "" || after != "" || !promptEnd.MatchString(trimmed) || notShellPrompt.MatchString(trimmed) {
		return &failure.Error{
			Code: failure.ExitBusy,
			Msg: fmt.Sprintf("the terminal runs %s, and its cursor line %q does not look like a shell prompt "+
				"(the far shell is busy, or the user has typed part of a line), so nothing was typed", carrier, strings.TrimSpace(s.Line)),
			Hint: "ask the user to let it finish or clear their line (Ctrl-U) in the ptybridge terminal, then retry",
		}
	}
	return nil
}

// cellsBefore is the part of line left of column col, counting one cell
// per rune (wide characters are rare in prompts; a wrong count only makes
// the prompt check stricter).
func cellsBefore(line string, col int) string {
	if col >= utf8.RuneCountInString(line) {
		return line + strings.Repeat(" ", col-utf8.RuneCountInString(line))
	}
	return string([]rune(line)[:col])
}

func cellsFrom(line string, col int) string {
	r := []rune(line)
	if col >= len(r) {
		return ""
	}
	return string(r[col:])
}

// NoAnswerError: the far end did not answer the probe.
func NoAnswerError(carrier string, line string) error {
	return &failure.Error{
		Msg: fmt.Sprintf("the program at the other end of %s did not answer as a shell ptysend can drive "+
			"(its prompt was %q); only a probe line was typed", carrier, strings.TrimSpace(line)),
		Hint: fmt.Sprintf("ptysend drives %s there: ask the user to start one of them in the ptybridge terminal (e.g. type bash), then retry",
			markers.Supported),
	}
}

// foreignVia names how a shell of another user or namespace on our own
// terminal was reached: its parent carrier (su, sudo, unshare), else the
// shell itself.
func foreignVia(pid int, name string) string {
	if parent := platform.Parent(pid); parent > 0 && ClassifyCarrier(platform.Args(parent)) != NotCarrier {
		return platform.Name(parent)
	}
	return name + " of another user or namespace"
}
