package markers

import (
	"embed"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// Shell is the family of shell syntax a wrapper script is written in.
type Shell int

const (
	POSIX Shell = iota // sh, dash, bash, ksh and busybox ash
	Fish
	Zsh // POSIX syntax, but its "command" skips builtins
)

// ProgramName is program without its directory and a login shell's '-'.
func ProgramName(program string) string { return strings.TrimPrefix(filepath.Base(program), "-") }

// ShellFor maps the name of the program in the foreground of the pane to
// its family. ok is false for a program that is not a shell we can drive.
func ShellFor(program string) (sh Shell, ok bool) {
	switch ProgramName(program) {
	case "zsh":
		return Zsh, true
	case "sh", "dash", "bash", "ksh", "ksh93", "mksh", "ash", "busybox":
		return POSIX, true
	case "fish":
		return Fish, true
	}
	return 0, false
}

// Supported names the shells ptysend drives, for messages to the agent.
const Supported = "bash, zsh, fish and sh (dash)"

// Unsupported reports whether program is a shell, by its name, whose
// syntax is neither POSIX nor fish's: ptysend refuses it rather than type
// code it would misread into the human's terminal.
func Unsupported(program string) bool {
	switch ProgramName(program) {
	case "csh", "tcsh", "nu", "xonsh", "elvish", "pwsh", "powershell", "rc", "es", "ion", "ysh", "murex":
		return true
	}
	return false
}

// Job is one command to run in the pane.
type Job struct {
	ID ID
	// Command is shell code for the pane's shell, as the agent wrote it.
	Command string
	// StderrPath receives the command's standard error: the terminal
	// (/dev/tty), or a fifo that ptysend reads.
	StderrPath string
	// AckPath, for ptysend's fifo, is a second fifo that ptysend holds
	// open for writing. After the command the wrapper writes the StderrDone
	// token into StderrPath, and reads AckPath until ptysend, having put
	// all the stderr on the terminal before END, closes it (or is gone).
	AckPath string
	// StdinPath, when set, is read as the command's standard input;
	// otherwise the command reads the terminal, as a typed command would.
	StdinPath string
	// EraseRows is how many rows the prompt and the typed line took: the wrapper's first line
	// erases them, so the human sees "[agent] $ COMMAND" and not the wrapper's path.
	EraseRows int
}

// The wrappers' templates and the hooks are the files of shell/. The
// wrappers build every marker with printf from pieces, so that a shell
// tracing its input (set -v, set -x) never prints one. END must come from
// the shell itself, never from a child: a child's marker can reach ptysend
// before the child has exited, and the next call would find the pane busy.
//
//go:embed shell
var shellFiles embed.FS

// shellFile is a file of shell/ without its leading comment block. (Only
// that block goes: elsewhere a '#' line might lie in a quoted string.)
func shellFile(name string) string {
	b, err := shellFiles.ReadFile("shell/" + name)
	if err != nil {
		panic(err)
	}
	s := string(b)
	for strings.HasPrefix(s, "#") {
		_, s, _ = strings.Cut(s, "\n")
	}
	return s
}

// Script returns the wrapper that runs job in the pane's shell when
// sourced there. It runs the command with eval in the shell itself, so cd,
// exports and functions persist, and a syntax error in the command is an
// ordinary failure that still reaches END.
//
// The command opens ptysend's fifo for reading too ("<>"): a write to it
// once ptysend is gone must neither kill the shell with SIGPIPE (bash, zsh
// and dash do not ignore it) nor wait for a reader. The ack fifo, on
// descriptor 9, is the wrapper's, not the command's.
func Script(sh Shell, job Job) string {
	fifo := job.AckPath != ""
	stdin := ""
	if job.StdinPath != "" {
		stdin = " <" + sh.quote(job.StdinPath)
	}
	vars := []string{"@ID@", string(job.ID), "@ERASE@", erase(job.EraseRows), "@DISPLAY@", sh.quote(DisplayLine(job.Command)),
		"@STDERR@", sh.quote(job.StderrPath), "@ACK@", sh.quote(job.AckPath)}
	template, redirects := "script.sh", " 2>|"+QuotePOSIX(job.StderrPath)
	switch {
	case sh == Fish:
		template, redirects = "script.fish", " 2>"+fishQuote(job.StderrPath)
		vars = append(vars, "@STDERR_DONE@",
			fishQuote(`exec 9<>"$3" 8<"$3" 9>&-; printf '\033]`+osc+`;D;%s\007' "$1" 1<>"$2"; read -r a <&8`),
			"@ACK_CLOSED@", fishQuote(`exec 9<>"$1" 8<"$1" 9>&-; while read -r a; do :; done <&8`))
	case fifo:
		redirects = " 2<>" + QuotePOSIX(job.StderrPath) + " 9<&-"
	}
	vars = append(vars, commandVars(sh, job.Command, redirects+stdin)...)
	return strings.NewReplacer(vars...).Replace(lines(shellFile(template), map[string]bool{"fifo": fifo, "tty": !fifo}))
}

// commandVars fill in how a wrapper's template runs command, with the
// pager settings for the command only. fish's are exports local to the
// block that runs it. In a POSIX shell @RUN@ runs it with eval: bash and
// dash export assignments before "command eval" for that command; zsh does
// not, so it gets an anonymous function with local -x. The leading space
// keeps eval from taking a command that starts with '-' for an option.
func commandVars(sh Shell, command, redirects string) []string {
	if sh == Fish {
		var sets []string
		for _, kv := range strings.Fields(pagerSettings) {
			name, value, _ := strings.Cut(kv, "=")
			sets = append(sets, "set -lx "+name+" "+fishQuote(value))
		}
		return []string{"@COMMAND@", fishQuote(" " + command), "@REDIRECTS@", redirects, "@PAGER@", strings.Join(sets, "; ")}
	}
	cmd := QuotePOSIX(" " + command)
	run := fmt.Sprintf("%s command eval %s%s", pagerSettings, cmd, redirects)
	if sh == Zsh {
		run = fmt.Sprintf("() { local -x %s; builtin eval %s; }%s", pagerSettings, cmd, redirects)
	}
	return []string{"@BUILTIN@", sh.builtin(), "@RUN@", run, "@ERREXIT_NOTE@", QuotePOSIX(errexitNote)}
}

// builtin calls the shell's own printf, eval and read, past the human's
// functions and aliases. In bash, dash and ksh "command" also takes eval's
// special-builtin powers away: a syntax error in the command no longer
// aborts the script (dash did, and END never came). zsh's "command" runs
// only external programs.
func (sh Shell) builtin() string {
	if sh == Zsh {
		return "builtin"
	}
	return "command"
}

// lines keeps or drops the conditional lines of a template: a line
// "?NAME text" is "text" when on[NAME], and nothing otherwise.
func lines(template string, on map[string]bool) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(template, "\n") {
		if name, text, ok := strings.Cut(line, " "); ok && strings.HasPrefix(name, "?") {
			if on[name[1:]] {
				b.WriteString(text)
			}
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// errexitNote is what the agent reads when its command left set -e on.
const errexitNote = "ptysend: note: the command turned on set -e in the shared shell; " +
	"it was turned off again, as the user's next failing command would have closed their terminal"

// pagerSettings keep programs from waiting in a pager for keys that no
// agent will press.
const pagerSettings = "PAGER=cat GIT_PAGER=cat MANPAGER=cat SYSTEMD_PAGER=cat GH_PAGER=cat AWS_PAGER="

// DisplayLine is the agent's command as the wrapper shows it to the human:
// its first line, shortened, with control characters made harmless.
func DisplayLine(command string) string {
	line, _, multi := strings.Cut(command, "\n")
	return "[agent] $ " + ShortLine(line, 160, multi)
}

// ShortLine is line with control characters as '?', cut to n characters,
// with " …" when it was cut or more followed.
func ShortLine(line string, n int, more bool) string {
	runes := []rune(line)
	for i, r := range runes {
		if r < ' ' || r == 0x7f {
			runes[i] = '?'
		}
	}
	if len(runes) > n {
		runes, more = runes[:n], true
	}
	if more {
		return string(runes) + " …"
	}
	return string(runes)
}

// quote quotes s as one word for the shell.
func (sh Shell) quote(s string) string {
	if sh == Fish {
		return fishQuote(s)
	}
	return QuotePOSIX(s)
}

// QuotePOSIX quotes s as one word for any POSIX shell.
func QuotePOSIX(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// fishQuote quotes s as one word for fish, where a backslash inside single
// quotes escapes a quote or another backslash.
func fishQuote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
}

// EchoRows is how many rows of a terminal width columns wide the echo of a line of n columns
// typed at column col (from 0) takes: the terminal wraps it, and Enter goes to the next row.
func EchoRows(col, n, width int) int {
	if width <= 0 {
		return 1
	}
	return max(1, (col+n+width-1)/width)
}

// SourceLine is the line typed into the shell to run a script file. The
// leading space keeps it out of the history where the shell honours that.
func SourceLine(sh Shell, scriptPath string) string {
	if sh == Fish {
		return " source " + fishQuote(scriptPath)
	}
	return " . " + QuotePOSIX(scriptPath)
}

// Integration returns the shell code that installs ptybridge's hooks in an
// interactive shell (shellName as /proc shows it), or "" for a shell
// without hooks. The hooks print the events the Tracker follows, and keep
// the lines that source ptysend's scripts from runtimeDir out of history.
func Integration(shellName, runtimeDir string) string {
	ours := " . '" + runtimeDir + "/"
	return hooks(ProgramName(shellName), ours+"*", ours)
}

// hooks returns the hooks of the shell name. Our lines, which start with
// ours, stay out of bash's history by its pattern histIgnore.
func hooks(name, histIgnore, ours string) string {
	switch name {
	case "sh", "dash", "ksh", "ksh93", "mksh", "ash":
		name = "sh"
	case "bash", "zsh", "fish":
	default:
		return ""
	}
	return strings.NewReplacer(
		"@HISTIGNORE@", QuotePOSIX(histIgnore),
		"@OURS@", QuotePOSIX(ours),
		"@MAXLINE@", strconv.Itoa(maxLine),
	).Replace(shellFile("hooks." + name))
}

// SetUpScript is what a new bridge's shell sources, before any terminal shows it, to install the
// hooks (Integration): then the shell's first call finds its events, and nothing for a human to
// see is left of the line typed, which took eraseRows rows with its prompt.
func SetUpScript(sh Shell, shellName, runtimeDir string, eraseRows int) string {
	printf := "printf"
	if sh != Fish {
		printf = sh.builtin() + " printf"
	}
	return Integration(shellName, runtimeDir) + printf + " '" + erase(eraseRows) + "'\n"
}
