package markers

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Shell is the family of shell syntax a wrapper script is written in.
type Shell int

const (
	// POSIX covers sh, dash, bash, ksh and busybox ash.
	POSIX Shell = iota
	// Fish is the fish shell, whose syntax differs.
	Fish
	// Zsh speaks POSIX syntax, but its "command" skips builtins.
	Zsh
)

// ShellFor maps the name of the program in the foreground of the pane
// (as in /proc/PID/comm, possibly with a leading '-' for a login shell) to
// its family. ok is false for a program that is not a shell we can drive.
func ShellFor(program string) (sh Shell, ok bool) {
	name := strings.TrimPrefix(filepath.Base(program), "-")
	switch name {
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

// Unsupported reports whether program is a shell, by its name, that
// ptysend cannot write a wrapper for: its syntax is neither POSIX nor
// fish's. Guessing would type code the shell misreads into the human's
// terminal, so such a shell is refused by name.
func Unsupported(program string) bool {
	switch strings.TrimPrefix(filepath.Base(program), "-") {
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
	// AckPath, for a StderrPath that is ptysend's fifo, is a second fifo
	// that ptysend holds open for writing. After the command the wrapper
	// writes the StderrDone token into StderrPath and waits to read
	// AckPath until ptysend closes it: ptysend has then put all the
	// command's stderr on the terminal, which must show before END and the
	// next prompt. A ptysend that is gone has closed it too: the wait
	// never outlives ptysend.
	AckPath string
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
	switch sh {
	case Fish:
		return fishScript(job)
	case Zsh:
		return posixScript(job, zshBuiltins)
	}
	return posixScript(job, posixBuiltins)
}

// builtins is how a POSIX shell calls its own printf, eval and read,
// bypassing any function or alias of the human's by those names.
type builtins struct{ printf, eval, read string }

var (
	// posixBuiltins: in bash, dash and ksh "command" finds builtins, and
	// it takes eval's special-builtin powers away, so a syntax error in the
	// command no longer aborts the whole script (dash did, and the END
	// marker never came).
	posixBuiltins = builtins{printf: "command printf", eval: "command eval", read: "command read"}
	// zshBuiltins: zsh's "command" runs only external programs.
	zshBuiltins = builtins{printf: "builtin printf", eval: "builtin eval", read: "builtin read"}
)

// posixScript is the wrapper for POSIX shells. The END marker must come
// from the shell itself, never from a child process: a marker printed by
// a child can reach ptysend before the child has exited, and the next call
// would find the pane busy with printf.
func posixScript(job Job, b builtins) string {
	redirects := " 2>|" + QuotePOSIX(job.StderrPath)
	if job.AckPath != "" {
		// ptysend's fifo is opened for reading too: a builtin's write to
		// it once ptysend is gone must not kill the human's shell with
		// SIGPIPE (bash, zsh and dash do not ignore it), nor the open wait
		// for a reader. The ack fifo is the wrapper's, not the command's.
		redirects = " 2<>" + QuotePOSIX(job.StderrPath) + " 9<&-"
	}
	if job.StdinPath != "" {
		redirects += " <" + QuotePOSIX(job.StdinPath)
	}
	// The command's word starts with a space, so bash's eval never takes
	// a command starting with '-' for an option.
	cmd := QuotePOSIX(evalText(job.Command))
	// The pager variables hold for the command only: bash and dash keep
	// assignments before "command eval" temporary and export them to the
	// command's programs; zsh does not export them, so it runs the command
	// in an anonymous function with local -x instead. The human's own pager
	// settings are untouched. The marker text is built by printf from
	// pieces, so a shell tracing its input (set -v, set -x) never prints a
	// marker-shaped line.
	run := fmt.Sprintf("%s %s %s%s", pagerSettings, b.eval, cmd, redirects)
	if b == zshBuiltins {
		run = fmt.Sprintf("() { local -x %s; %s %s; }%s", pagerSettings, b.eval, cmd, redirects)
	}
	body := run + "\n__ptybridge_status=$?\n" + posixAfterCommand(job, b)
	if job.AckPath != "" {
		// The ack fifo is opened before the command, while ptysend, which
		// has just typed the line, holds its writing end: once ptysend is
		// gone the read at the end returns. (Opened at the end, it could
		// wait for ever for a writer; and bash and dash keep a copy of a
		// descriptor that a redirection closes, to restore it, so the shell
		// cannot lend itself a writer for the open and let go of it.)
		body = "{\n" + body + "\n} 9<" + QuotePOSIX(job.AckPath)
	}
	return fmt.Sprintf("%[1]s '%%s\\n' %[4]s\n"+
		"__ptybridge_opts=$-\n"+
		"%[1]s '\\033]%[2]s;S;%%s\\007' %[3]s\n"+
		"%[5]s\n"+
		"%[1]s '\\033]%[2]s;E;%%s;%%d\\007' %[3]s \"$__ptybridge_status\"\n"+
		"unset __ptybridge_opts __ptybridge_status __ptybridge_ack\n",
		b.printf, osc, job.ID, QuotePOSIX(DisplayLine(job.Command)), body)
}

// posixAfterCommand is what runs after the command and before END. errexit
// left on by the command would end the human's shell at their next
// failing command: it is switched off again, and a note added to the
// command's stderr. Then, for ptysend's fifo, the StderrDone token follows
// it there, and the shell waits for ptysend to close the ack fifo (see
// Job.AckPath). "1<>" opens the stderr fifo for reading too, so that the
// token never waits for a reader nor gets the shell a SIGPIPE, ptysend
// gone or not.
func posixAfterCommand(job Job, b builtins) string {
	errexit := func(redirect string) string {
		return fmt.Sprintf("case $-/$__ptybridge_opts in *e*/*e*) ;; *e*/*) set +e; %s '%%s\\n' %s%s ;; esac",
			b.printf, QuotePOSIX(errexitNote), redirect)
	}
	if job.AckPath == "" {
		return errexit(" >>" + QuotePOSIX(job.StderrPath))
	}
	return fmt.Sprintf("{ %s; %s '\\033]%s;D;%%s\\007' %s; } 1<>%s\n"+
		"%s -r __ptybridge_ack <&9 || :",
		errexit(""), b.printf, osc, job.ID, QuotePOSIX(job.StderrPath), b.read)
}

// errexitNote is what the agent reads when its command left set -e on.
const errexitNote = "ptysend: note: the command turned on set -e in the shared shell; " +
	"it was turned off again, as the user's next failing command would have closed their terminal"

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

// fishScript is the wrapper for fish. Fish runs the commands of a sourced
// file in its own process group unless job control is full, so Ctrl-C would
// hit fish itself and fish would look idle in the foreground while the
// command still runs. The wrapper turns full job control on for the
// command, as bash, zsh and dash have it, and a one-shot fish_prompt
// handler restores the human's setting: it runs even when Ctrl-C cancels
// the rest of the script.
//
// Fish's eval prints a syntax error on fish's own stderr, the terminal,
// whatever the redirections, so it would reach the agent as stdout. The
// text is first parsed by fish --no-execute, whose message goes to the
// command's stderr; a syntax error then gets eval's status, 123.
func fishScript(job Job) string {
	text := fishQuote(evalText(job.Command))
	errFile := fishQuote(job.StderrPath)
	redirects := " 2>" + errFile
	if job.StdinPath != "" {
		redirects += " <" + fishQuote(job.StdinPath)
	}
	restore := "__ptybridge_restore_" + string(job.ID)
	start := fmt.Sprintf("builtin printf '\\033]%s;S;%%s\\007' %s", osc, job.ID)
	end := fmt.Sprintf("builtin printf '\\033]%s;E;%%s;%%d\\007' %s $__ptybridge_status", osc, job.ID)
	return fmt.Sprintf("set -l __ptybridge_jc interactive\n"+
		"status is-full-job-control; and set __ptybridge_jc full\n"+
		"status is-no-job-control; and set __ptybridge_jc none\n"+
		"function %[1]s --on-event fish_prompt -V __ptybridge_jc\n"+
		"    status job-control $__ptybridge_jc\n"+
		"    functions --erase %[1]s\n"+
		"end\n"+
		"set -e __ptybridge_jc\n"+
		"status job-control full\n"+
		"builtin printf '%%s\\n' %[7]s\n"+
		"%[2]s\n"+
		"set -l __ptybridge_status 123\n"+
		"if builtin printf '%%s' %[4]s | command $__fish_bin_dir/fish --no-config --no-execute 2>%[5]s\n"+
		"    %[8]s\n"+
		"    eval %[4]s%[6]s\n"+
		"    set __ptybridge_status $status\n"+
		"end\n"+
		"%[9]s"+
		"%[3]s\n"+
		"set -e __ptybridge_status\n",
		restore, start, end, text, errFile, redirects, fishQuote(DisplayLine(job.Command)), fishPagerSettings(),
		fishStderrDone(job))
}

// fishStderrDone writes the StderrDone token and waits for ptysend (see
// Job.AckPath). Fish has no "<>" redirection, and its read builtin does
// not read a block's descriptor 9: sh does both, as in posixAfterCommand.
// Its exec lends it a writer of the ack fifo for the instant of the open
// that must not wait (ptysend may be gone), and lets go of it, so the read
// ends when ptysend closes its end or exits.
func fishStderrDone(job Job) string {
	if job.AckPath == "" {
		return ""
	}
	return fmt.Sprintf("command /bin/sh -c %s sh %s %s %s\n",
		fishQuote(shStderrDone), job.ID, fishQuote(job.StderrPath), fishQuote(job.AckPath))
}

// shStderrDone is the script for sh -c, with the id, the stderr fifo and
// the ack fifo as $1, $2 and $3.
const shStderrDone = `exec 9<>"$3" 8<"$3" 9>&-; printf '\033]` + osc + `;D;%s\007' "$1" 1<>"$2"; read -r a <&8`

// fishPagerSettings are pagerSettings as block-local exports: they end
// with the if block that runs the command.
func fishPagerSettings() string {
	var sets []string
	for _, kv := range strings.Fields(pagerSettings) {
		name, value, _ := strings.Cut(kv, "=")
		sets = append(sets, fmt.Sprintf("set -lx %s %s", name, fishQuote(value)))
	}
	return strings.Join(sets, "; ")
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
