package markers

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Shell is the family of shell syntax a wrapper script is written in.
type Shell int

const (
	// POSIX covers sh, dash, bash, zsh, ksh and busybox ash.
	POSIX Shell = iota
	// Fish is the fish shell, whose syntax differs.
	Fish
)

// ShellFor maps the name of the program in the foreground of the pane
// (as in /proc/PID/comm, possibly with a leading '-' for a login shell) to
// its family. ok is false for a program that is not a shell we can drive.
func ShellFor(program string) (sh Shell, ok bool) {
	name := strings.TrimPrefix(filepath.Base(program), "-")
	switch name {
	case "sh", "dash", "bash", "zsh", "ksh", "ksh93", "mksh", "ash", "busybox":
		return POSIX, true
	case "fish":
		return Fish, true
	}
	return 0, false
}

// Job is one command to run in the pane.
type Job struct {
	ID ID
	// Command is shell code for the pane's shell, as the agent wrote it.
	Command string
	// StderrPath receives the command's standard error.
	StderrPath string
	// StdinPath, when set, is read as the command's standard input;
	// otherwise the command reads the terminal, as a typed command would.
	StdinPath string
}

// evalText is what eval gets: a leading space keeps a command that starts
// with '-' from being read as an option of eval itself.
func evalText(command string) string { return " " + command }

// Script returns the wrapper that runs job in the pane's shell when
// sourced there. It runs the command with eval in the shell itself, so cd,
// exports and functions persist, and a syntax error in the command is an
// ordinary failure that still reaches the END marker.
func Script(sh Shell, job Job) string {
	if sh == Fish {
		return fishScript(job)
	}
	return posixScript(job)
}

func posixScript(job Job) string {
	redirects := " 2>" + QuotePOSIX(job.StderrPath)
	if job.StdinPath != "" {
		redirects += " <" + QuotePOSIX(job.StdinPath)
	}
	// eval runs as "command eval", which is not a special built-in: on a
	// syntax error in the command, dash, ash and bash --posix would
	// otherwise abandon the whole sourced script, and END would never
	// come. zsh's "command" runs only external programs, so zsh gets plain
	// eval, where a syntax error is an ordinary failure already. The
	// command's word starts with a space, so bash's eval never takes a
	// command starting with '-' for an option.
	cmd := QuotePOSIX(evalText(job.Command))
	// The pager variables hold for the command only: bash and dash keep
	// assignments before "command eval" temporary and export them to the
	// command's programs; zsh needs local -x in an anonymous function,
	// which only zsh can parse, so it reaches zsh through one more eval.
	// The human's own pager settings are untouched.
	// The marker text is built by printf from pieces, so a shell tracing
	// its input (set -v, set -x) never prints a marker-shaped line.
	zsh := QuotePOSIX(fmt.Sprintf("() { local -x %s; eval %s; }", pagerSettings, cmd))
	return fmt.Sprintf("command printf '%%s\\n' %s\n"+
		"command printf '\\033]%s;S;%%s\\007' %s\n"+
		"case ${ZSH_VERSION-} in '') %s command eval %s%s ;; *) eval %s%s ;; esac\n"+
		"command printf '\\033]%s;E;%%s;%%d\\007' %s \"$?\"\n",
		QuotePOSIX(DisplayLine(job.Command)),
		osc, job.ID,
		pagerSettings, cmd, redirects, zsh, redirects,
		osc, job.ID)
}

// pagerSettings make programs print straight through instead of waiting
// in a pager for keys that no agent will press.
const pagerSettings = "PAGER=cat GIT_PAGER=cat MANPAGER=cat SYSTEMD_PAGER=cat GH_PAGER=cat AWS_PAGER="

// DisplayLine is how an agent's command is shown to the human in the
// pane, printed before it runs: its first line, shortened, with control
// characters made harmless.
func DisplayLine(command string) string {
	const max = 160
	line, _, multi := strings.Cut(command, "\n")
	runes := []rune(line)
	for i, r := range runes {
		if r < ' ' || r == 0x7f {
			runes[i] = '?'
		}
	}
	if len(runes) > max {
		runes, multi = runes[:max], true
	}
	shown := "[agent] $ " + string(runes)
	if multi {
		shown += " …"
	}
	return shown
}

func fishScript(job Job) string {
	redirects := " 2>" + fishQuote(job.StderrPath)
	if job.StdinPath != "" {
		redirects += " <" + fishQuote(job.StdinPath)
	}
	return fmt.Sprintf("command printf '\\033]%s;S;%%s\\007' %s\n"+
		"eval %s%s\n"+
		"command printf '\\033]%s;E;%%s;%%d\\007' %s $status\n",
		osc, job.ID, fishQuote(evalText(job.Command)), redirects, osc, job.ID)
}

// QuotePOSIX quotes s as one word for any POSIX shell.
func QuotePOSIX(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fishQuote quotes s as one word for fish, where a backslash inside single
// quotes escapes a quote or another backslash.
func fishQuote(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", `\'`) + "'"
}

// SourceLine is the short line typed into the shell to run a script file.
// The leading space keeps it out of the history of shells that honour
// that convention (bash with ignorespace, zsh with HIST_IGNORE_SPACE, fish).
func SourceLine(sh Shell, scriptPath string) string {
	if sh == Fish {
		return " source " + fishQuote(scriptPath)
	}
	return " . " + QuotePOSIX(scriptPath)
}
