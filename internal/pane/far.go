package pane

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// A carrier connects the terminal to a shell ptysend cannot read in /proc: ssh, su or sudo, docker
// exec or unshare. Whether it carries an interactive shell (driven through the terminal stream) or
// runs a command (busy) comes from its command line and the children /proc shows (sudo -i's shell).
type CarrierUse int

const (
	NotCarrier     CarrierUse = iota // not a program that carries shells
	CarriesShell                     // an interactive shell at the far end
	CarriesCommand                   // a command: the pane is busy
)

func ClassifyCarrier(argv []string) CarrierUse {
	if len(argv) == 0 {
		return NotCarrier
	}
	name, args := markers.ProgramName(argv[0]), argv[1:]
	switch name {
	case "ssh", "slogin":
		flags, _, rest := parseArgs(args, "BbcDEeFIiJLlmOoPpQRSWw")
		return shellOrCommand(len(rest) == 1 && !strings.ContainsAny(flags, "NWfOs"))
	case "mosh-client":
		return CarriesShell
	case "mosh":
		return shellOrCommand(!slices.Contains(args, "--"))
	case "su":
		flags, long, _ := parseArgs(args, "sgGwc", "--shell", "--group", "--supp-group", "--whitelist-environment")
		command := slices.Contains(long, "--command") || slices.Contains(long, "--session-command")
		return shellOrCommand(!command && !strings.Contains(flags, "c"))
	case "sudo":
		flags, long, rest := parseArgs(args, "ugpCDrtTURh", "--user", "--group", "--prompt", "--close-from",
			"--chdir", "--role", "--type", "--command-timeout", "--other-user", "--chroot", "--host")
		if strings.ContainsAny(flags, "elvkKV") {
			return CarriesCommand
		}
		return commandUse(rest, strings.ContainsAny(flags, "is") || slices.Contains(long, "--login") || slices.Contains(long, "--shell"))
	case "doas":
		flags, _, rest := parseArgs(args, "uC")
		return commandUse(rest, strings.Contains(flags, "s"))
	case "docker", "podman", "nerdctl", "kubectl", "oc", "lxc", "incus", "toolbox", "distrobox",
		"systemd-nspawn", "machinectl", "chroot", "unshare", "nsenter":
		return tailUse(name, args)
	}
	return NotCarrier
}

func shellOrCommand(shell bool) CarrierUse {
	if shell {
		return CarriesShell
	}
	return CarriesCommand
}

// parseArgs splits args at the first non-option (or after "--"), given the options
// taking an argument: flags are the short options set, long the long ones' names.
func parseArgs(args []string, shortArg string, longArg ...string) (flags string, long, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return flags, long, args[i+1:]
		case strings.HasPrefix(a, "--"):
			name, _, valued := strings.Cut(a, "=")
			long = append(long, name)
			if !valued && slices.Contains(longArg, name) && i+1 < len(args) {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				flags += a[j : j+1]
				if strings.IndexByte(shortArg, a[j]) >= 0 {
					if j == len(a)-1 && i+1 < len(args) {
						i++
					}
					break
				}
			}
		default:
			return flags, long, args[i:]
		}
	}
	return flags, long, nil
}

// commandUse is what a carrier running cmd carries: with none, a shell if its options ask.
func commandUse(cmd []string, shellOption bool) CarrierUse {
	if len(cmd) == 0 {
		return shellOrCommand(shellOption)
	}
	if _, ok := markers.ShellFor(cmd[0]); ok {
		return shellOrCommand(interactive(cmd))
	}
	if u := ClassifyCarrier(cmd); u != NotCarrier {
		return u
	}
	return CarriesCommand
}

// tailUse reads container and namespace tools, whose options vary too much to parse:
// they run the last supported shell named on the line if only options (no -c) follow.
// unshare, nsenter and machinectl shell run the user's shell when given no command.
func tailUse(name string, args []string) CarrierUse {
	for i := len(args) - 1; i >= 0; i-- {
		if _, ok := markers.ShellFor(args[i]); ok {
			return shellOrCommand(interactive(args[i:]))
		}
		if !strings.HasPrefix(args[i], "-") {
			break
		}
	}
	switch name {
	case "unshare", "nsenter":
		_, _, rest := parseArgs(args, "tSGRw")
		return shellOrCommand(len(rest) == 0)
	case "machinectl":
		return shellOrCommand(len(args) > 0 && args[0] == "shell" && len(args) <= 2)
	}
	return CarriesCommand
}

// Far is the shell at the far end of a carrier, which internal/call drives through the stream.
type Far struct {
	Carrier Process      // the local end, or the far shell itself as another user on our terminal
	Via     string       // how it was reached, for messages
	Record  *FarRecord   // nil before the first probe
	Hooked  bool         // its hooks say that it waits at its prompt; else a probe asks it first
	Screen  *tmux.Screen // what the screen showed, when it was read
}

// readFar trusts a far shell's hooks when they speak; else the screen must show an empty prompt.
func (s *State) readFar(b bridge.Bridge, via string, want Want) (settle bool, err error) {
	f := &Far{Carrier: s.Foreground, Via: via, Record: FarRecordFor(b, s.Foreground.PID)}
	s.Far = f
	if rec := f.Record; rec != nil && rec.Hooked && s.View.Shell.PID == rec.PID {
		switch s.View.Shell.State {
		case markers.StateTyped:
			return s.halfTyped()
		case markers.StatePrompt:
			f.Hooked = true
			if s.View.Shell.ViCommand { // its hooks say the mode, as a local shell's do
				return s.viCommand()
			}
			return s.free()
		}
		// It runs a command: perhaps another shell the human started in it
		// (sudo -i on the far host), probed when the screen shows its prompt.
		if scr, err := tmux.Capture(s.View.PaneID); err == nil && CheckFarPrompt(scr, via) == nil {
			f.Screen = &scr
			return s.free()
		}
		kind := string(rec.Kind)
		if rec.User != "" {
			kind += " as " + rec.User + "@" + rec.Host
		}
		s.Kind, s.Refusal = Busy, refusal(fmt.Sprintf("the shared terminal is busy: the shell at the far end (%s, through %s) is running a command, so nothing was typed",
			kind, rec.CarrierName),
			"ask the user to let it finish or press Ctrl-C in the ptybridge terminal, then retry "+
				"(a program of theirs showing a shell-like prompt reads as busy too)")
		return true, nil
	}
	if want == Nothing {
		// Only a call can tell: it reads the screen, asks the shell, refuses what it cannot drive.
		return s.idle()
	}
	scr, err := tmux.Capture(s.View.PaneID)
	if err != nil {
		return false, failure.From(err)
	}
	f.Screen = &scr
	if err := CheckFarPrompt(scr, via); err != nil {
		s.Kind, s.Refusal = Busy, err
		if scr.InMode {
			s.Kind, s.CopyMode = CopyMode, true
		}
		return true, nil
	}
	return s.free()
}

// carriedProgram follows carrier pid's children /proc shows (sudo, su --pty) to the tty's program.
func carriedProgram(pid int) (string, []string) {
	for range 8 {
		kids := platform.Children(pid)
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
		pid = child
	}
	return "", nil
}

// lazyRegexp compiles expr at first use: compiled at start, the patterns cost every ptysend 0.1 ms.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// A far shell without hooks must show its prompt; ptysend never types into a password prompt.
var (
	secretPrompt = lazyRegexp(`(?i)(password|passphrase|passcode|\bpin\b|verification code|` +
		`\[y/n\]|\(y/n\)|yes/no|\(yes/no|continue\?|are you sure)`)
	promptEnd = lazyRegexp(`[$#%>❯»➜λ] ?$`)
	// Continuation prompts (sh's "> ", zsh's "dquote> ") and REPLs' (">>> ") are no place to type.
	notShellPrompt = lazyRegexp(`^\s*(>|>>|>>>|\.\.\.|[a-z]+( [a-z]+)*>|In \[\d+\]:)\s*$`)
)

func CheckFarPrompt(s tmux.Screen, carrier string) error {
	if s.InMode {
		return CopyModeError
	}
	if s.Alternate {
		return refusal(fmt.Sprintf("the shared terminal shows a full-screen program (through %s), so nothing was typed", carrier),
			"ask the user to quit it in the ptybridge terminal, then retry")
	}
	p := readCursorLine(s)
	if p.asks {
		return askingRefusal(p.before)
	}
	if !p.emptyPrompt {
		return refusal(fmt.Sprintf("the terminal runs %s, and its cursor line %q does not look like a shell prompt "+
			"(the far shell is busy, or the user has typed part of a line), so nothing was typed", carrier, p.line),
			"ask the user to let it finish or clear their line (Ctrl-U) in the ptybridge terminal, then retry")
	}
	return nil
}

// cursorLine is the screen's cursor line as a prompt: a shell whose events do not speak (no hooks
// yet) shows there whether it waits at an empty prompt.
type cursorLine struct {
	line, before, after string // the whole line, trimmed; what precedes the cursor; what follows it, trimmed
	asks                bool   // a question: a password's, a confirmation's
	emptyPrompt         bool   // a shell's prompt with nothing typed after it
}

func readCursorLine(s tmux.Screen) cursorLine {
	// One cell per rune: wide characters are rare in prompts, a wrong count only makes it stricter.
	line := s.CursorLine()
	cells := []rune(line)
	col := min(s.CursorX, len(cells))
	before, after := string(cells[:col]), strings.TrimSpace(string(cells[col:]))
	if rightPrompt(cells[col:], len(cells), s.Width) {
		after = ""
	}
	trimmed := strings.TrimRight(before, " ")
	return cursorLine{line: strings.TrimSpace(line), before: before, after: after, asks: secretPrompt().MatchString(before),
		emptyPrompt: trimmed != "" && after == "" && promptEnd().MatchString(trimmed) && !notShellPrompt().MatchString(trimmed)}
}

// rightPrompt: what follows the cursor is a right prompt (zsh's RPROMPT, fish_right_prompt): set
// apart from the cursor by spaces and ending at the right edge. Keys typed and gone back over
// start at the cursor.
func rightPrompt(after []rune, lineLen, width int) bool {
	gap := 0
	for gap < len(after) && after[gap] == ' ' {
		gap++
	}
	return gap > 0 && gap < len(after) && lineLen >= width-1
}

func askingRefusal(before string) error {
	return refusal(fmt.Sprintf("the shared terminal asks for something (%q), so nothing was typed", strings.TrimSpace(before)),
		"ask the user to answer it in the ptybridge terminal (a password is theirs to type), then retry")
}

func NoAnswerError(carrier string, line string) error {
	return &failure.Error{
		Msg: fmt.Sprintf("the program at the other end of %s did not answer as a shell ptysend can drive "+
			"(its prompt was %q); only a probe line was typed", carrier, strings.TrimSpace(line)),
		Hint: fmt.Sprintf("ptysend drives %s there: ask the user to start one of them in the ptybridge terminal (e.g. type bash), then retry",
			markers.Supported),
	}
}

// foreignVia: how a shell of another user or namespace came here: its carrier parent, else itself.
func foreignVia(pid int, name string) string {
	if parent := platform.Parent(pid); parent > 0 && ClassifyCarrier(platform.Args(parent)) != NotCarrier {
		return platform.Name(parent)
	}
	return name + " of another user or namespace"
}

// FarRecord is the far shell's kind from the probe, the rest from its first call; for one carrier.
type FarRecord struct {
	Carrier     string          `json:"carrier"` // platform.ExecImage of the carrier
	CarrierName string          `json:"carrier_name"`
	Kind        markers.FarKind `json:"kind"`
	Hooked      bool            `json:"hooked"`
	PID         int             `json:"pid"`
	User        string          `json:"user,omitempty"`
	Host        string          `json:"host,omitempty"`
	// As the probe saw them: how many rows a typed loader line takes.
	PromptCol int `json:"prompt_col"`
	Width     int `json:"width"`
}

func SaveFar(b bridge.Bridge, r *FarRecord) error { return saveJSON(b.File(".far.json"), r) }

func FarRecordFor(b bridge.Bridge, carrier int) *FarRecord {
	var r FarRecord
	if !loadJSON(b.File(".far.json"), &r) || r.Carrier == "" || r.Carrier != platform.ExecImage(carrier) {
		return nil
	}
	return &r
}

// WaitsForHuman: the foreground program sleeps until the terminal has input: not hung (--timeout).
// Where the OS cannot tell a read of the terminal from another sleep (macOS: a cooked read), the
// cursor line decides, as in far mode: a question there.
func WaitsForHuman(paneID string, panePID int) bool {
	fg, err := platform.ForegroundPID(panePID)
	if err != nil || fg <= 0 {
		return false
	}
	f := platform.OpenTTY(platform.TTYOf(panePID))
	if f == nil {
		return false
	}
	defer f.Close()
	return platform.WaitsForInput(fg, f) || !platform.SeesReads && platform.WaitsAtPrompt(fg, f) && FarAsks(paneID) != ""
}

// Asks is the pane's cursor line as tmux shows it, and whether a full-screen program (the alternate
// screen) drew it: tmux can be ahead of the stream the relay brings.
func Asks(paneID string) (line string, fullScreen bool) {
	s, _ := tmux.Capture(paneID) // no line when it fails
	return strings.TrimSpace(s.CursorLine()), s.Alternate
}

var farAsks = lazyRegexp(`[:?]\s*$`)

// FarAsks is what a far command asks the human, from the cursor line: the kernel does not see it.
func FarAsks(paneID string) string {
	line, _ := Asks(paneID)
	if line == "" || !(secretPrompt().MatchString(line) || farAsks().MatchString(line)) {
		return ""
	}
	return line
}
