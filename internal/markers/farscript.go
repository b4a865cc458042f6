package markers

import (
	"fmt"
	"strings"
)

// FarJob is one command to run in a far shell.
type FarJob struct {
	ID      ID
	Command string
	Kind    FarKind
	// First: the shell has no hooks yet; this call installs them and
	// reports who and where the shell is (the INFO marker).
	First bool
	// Stdin: the wrapper reads the forwarded stdin from the terminal
	// (after READ-STDIN) and gives it to the command. EmptyStdin: the
	// forwarded stdin is empty, and the command reads /dev/null.
	Stdin, EmptyStdin bool
	// Terminal: the command's stderr and stdin stay on the terminal, as
	// a REPL's do (its prompts go to stderr): no loop, no redirection.
	Terminal bool
	// EraseRows is how many rows the loader's echo took (with the prompt
	// before it): the wrapper erases them before the [agent] line.
	EraseRows int
}

// FarScript is the payload that runs job in the far shell when sourced
// there by the loader. The whole of it is one block: a payload cut short
// (ptysend stopped while typing it) is a syntax error, and nothing of it
// runs.
func FarScript(job FarJob) string {
	if job.Kind == FarFish {
		return farFishScript(job)
	}
	if job.Kind == FarBash {
		return farBashScript(job)
	}
	b := posixBuiltins
	if job.Kind == FarZsh {
		b = zshBuiltins
	}
	return farPOSIXScript(job, b)
}

// stderrLoopBody copies the command's stderr from the fifo $1/e.$2 to
// the terminal, piece by piece as it comes, each piece in an R/r frame
// written with one write() (cat of a file of at most 16 KiB and the two
// markers), so that the command's stdout never lands inside a frame. It
// is plain sh with dd and cat, run as a child: it does not depend on the
// human's shell or options. It ends when the command's side of the fifo
// is closed.
const stderrLoopBody = `exec <"$1/e.$2" >&2; rm -f "$1/e.$2"
while printf '\033]` + osc + `;R;%s\007' "$2" >"$1/f" && LC_ALL=C dd bs=16384 count=1 2>"$1/s" >>"$1/f"; do
read r <"$1/s"; case $r in 0+0*) break;; esac
printf '\033]` + osc + `;r;%s\007' "$2" >>"$1/f"; cat "$1/f"
done
: >"$1/f"`

// stderrLoopDash runs the loop for dash, whose job control announces a
// job it waited for: in the background of a child sh that exits at once,
// so that it is no job of the shell's. Its end is told through the fifo
// $1/k.$2, which the wrapper holds open read-write (on descriptor 9,
// around the command) from before the command starts: the loop's open
// never blocks for long, and the wrapper's read returns once the loop
// wrote its line, after the last piece of stderr.
const stderrLoopDash = `(exec 3>"$1/k.$2"; rm -f "$1/k.$2"
` + stderrLoopBody + `
echo >&3) &`

// procsubLoop is stderrLoop for a process substitution of bash or zsh:
// the same loop in the shell's own syntax, reading the pipe on its stdin
// and writing to its stdout, the terminal.
func procsubLoop(id ID, b builtins) string {
	d := `"$` + farDir + `"`
	return fmt.Sprintf(`set +eu; while %[1]s '\033]%[2]s;R;%%s\007' %[3]s >%[4]s/f && LC_ALL=C command dd bs=16384 count=1 2>%[4]s/s >>%[4]s/f; do `+
		`IFS= read -r __ptybridge_r <%[4]s/s; case $__ptybridge_r in 0+0*) break;; esac; `+
		`%[1]s '\033]%[2]s;r;%%s\007' %[3]s >>%[4]s/f; command cat %[4]s/f; done; : >%[4]s/f`,
		b.printf, osc, id, d)
}

// frame is text printed by the shell itself as one R/r frame on stderr.
func frameFormat(id ID) string {
	return `\033]` + osc + `;R;` + string(id) + `\007%s\n\033]` + osc + `;r;` + string(id) + `\007`
}

func farErase(rows int) string {
	return fmt.Sprintf(`\033[%dA\r\033[J`, max(rows, 1))
}

func farPOSIXScript(job FarJob, b builtins) string {
	d := `"$` + farDir + `"`
	var s strings.Builder
	s.WriteString("{\n: >" + d + "/w\nunset __ptybridge_w\n")
	if job.First {
		s.WriteString(FarIntegration(job.Kind))
		s.WriteString(StaleDirsCleanup + "\"$$\"\n")
		fmt.Fprintf(&s, "%s '\\033]%s;%s;%%s;%%s;%%s;%%s\\007' %s \"$$\" \"$(command id -un 2>/dev/null)\" \"$(command uname -n 2>/dev/null)\"\n",
			b.printf, osc, infoTag, job.ID)
	}
	redirects := " 2>" + d + "/e." + string(job.ID)
	redirects += farStdin(&s, job, b.printf)
	if job.Terminal {
		redirects = ""
	}
	cmd := QuotePOSIX(evalText(job.Command))
	if job.Kind.procsub() && !job.Terminal {
		// bash and zsh: the loop is a process substitution, which needs
		// no fifo nor child sh; bash waits for it with wait $!, zsh by
		// itself (it waits for those of a current-shell construct).
		redirects = strings.Replace(redirects, " 2>"+d+"/e."+string(job.ID), " 2> >("+procsubLoop(job.ID, b)+")", 1)
	}
	run := fmt.Sprintf("%s %s %s%s", pagerSettings, b.eval, cmd, redirects)
	if b == zshBuiltins {
		run = fmt.Sprintf("() { local -x %s; %s %s; }%s", pagerSettings, b.eval, cmd, redirects)
	}
	fmt.Fprintf(&s, "%s '%s%%s\\n' %s\n", b.printf, farErase(job.EraseRows), QuotePOSIX(DisplayLine(job.Command)))
	s.WriteString("__ptybridge_opts=$-\n")
	loop := !job.Kind.procsub() && !job.Terminal
	if loop {
		fmt.Fprintf(&s, "command mkfifo -m 600 %[1]s/e.%[2]s %[1]s/k.%[2]s && command sh -c %[3]s sh %[1]s %[2]s\n",
			d, job.ID, QuotePOSIX(stderrLoopDash))
	}
	fmt.Fprintf(&s, "%s '\\033]%s;S;%%s\\007' %s\n", b.printf, osc, job.ID)
	if loop {
		s.WriteString("{\n")
	}
	s.WriteString(run + "\n")
	s.WriteString("__ptybridge_status=$?\n")
	fmt.Fprintf(&s, "case $-/$__ptybridge_opts in *e*/*e*) ;; *e*/*) set +e; %s '%s' %s >&2 ;; esac\n",
		b.printf, frameFormat(job.ID), QuotePOSIX(errexitNote))
	if loop {
		fmt.Fprintf(&s, "read -r __ptybridge_ep <&9\n} 9<>%s/k.%s\n", d, job.ID)
	}
	if job.Stdin {
		s.WriteString(": >" + d + "/i\n")
	}
	fmt.Fprintf(&s, "%s '\\033]%s;E;%%s;%%d\\007' %s \"$__ptybridge_status\"\n", b.printf, osc, job.ID)
	s.WriteString("unset __ptybridge_opts __ptybridge_status __ptybridge_ep\n}\n")
	return s.String()
}

// farFishScript is the far wrapper for fish, as fishScript locally: full
// job control for the command, restored by a one-shot fish_prompt
// handler; a syntax check by fish --no-execute first.
func farFishScript(job FarJob) string {
	d := "$" + farDir
	restore := "__ptybridge_restore_" + string(job.ID)
	text := fishQuote(evalText(job.Command))
	fifo := d + "/e." + string(job.ID)
	var s strings.Builder
	s.WriteString("begin\ntrue >" + d + "/w\n")
	if job.First {
		s.WriteString(FarIntegration(FarFish))
		s.WriteString(StaleDirsCleanup + "$fish_pid\n")
		fmt.Fprintf(&s, "builtin printf '\\033]%s;%s;%%s;%%s;%%s;%%s\\007' %s $fish_pid (command id -un 2>/dev/null) (command uname -n 2>/dev/null)\n",
			osc, infoTag, job.ID)
	}
	stdin := farStdin(&s, job, "builtin printf")
	if job.Terminal {
		stdin = ""
	}
	fmt.Fprintf(&s, "set -l __ptybridge_jc interactive\n"+
		"status is-full-job-control; and set __ptybridge_jc full\n"+
		"status is-no-job-control; and set __ptybridge_jc none\n"+
		"function %[1]s --on-event fish_prompt -V __ptybridge_jc\n"+
		"    status job-control $__ptybridge_jc\n"+
		"    functions --erase %[1]s\n"+
		"end\n"+
		"status job-control full\n", restore)
	fmt.Fprintf(&s, "builtin printf '%s%%s\\n' %s\n", farErase(job.EraseRows), fishQuote(DisplayLine(job.Command)))
	// fish announces no job it waited for: the loop is one.
	if !job.Terminal {
		fmt.Fprintf(&s, "command mkfifo -m 600 %[1]s/e.%[2]s; and command sh -c %[3]s sh %[1]s %[2]s &\nset -g __ptybridge_ep $last_pid\n",
			d, job.ID, fishQuote(stderrLoopBody))
	}
	fmt.Fprintf(&s, "builtin printf '\\033]%s;S;%%s\\007' %s\n", osc, job.ID)
	fmt.Fprintf(&s, "begin\n"+
		"    if builtin printf '%%s' %[1]s | command $__fish_bin_dir/fish --no-config --no-execute\n"+
		"        %[2]s\n"+
		"        eval %[1]s%[3]s\n"+
		"        set -g __ptybridge_status $status\n"+
		"    else\n"+
		"        set -g __ptybridge_status 123\n"+
		"    end\n"+
		"end%[4]s\n", text, fishPagerSettings(), stdin, fishStderr(job, fifo))
	if !job.Terminal {
		s.WriteString("wait $__ptybridge_ep\n")
	}
	if job.Stdin {
		s.WriteString("true >" + d + "/i\n")
	}
	fmt.Fprintf(&s, "builtin printf '\\033]%s;E;%%s;%%d\\007' %s $__ptybridge_status\n", osc, job.ID)
	s.WriteString("set -e __ptybridge_status; set -e __ptybridge_ep\nend\n")
	return s.String()
}

// farStdin writes the wrapper's reading of the forwarded stdin, and
// returns the command's redirection: base64 typed after READ-STDIN, read
// with the echo off; /dev/null for an empty one, which needs no typing.
func farStdin(s *strings.Builder, job FarJob, printf string) string {
	d := "$" + farDir
	if job.Kind != FarFish {
		d = `"` + d + `"`
	}
	if !job.Stdin {
		// What an interrupted call left there goes now.
		fmt.Fprintf(s, "true >%s/i\n", d)
	}
	switch {
	case job.EmptyStdin:
		return " </dev/null"
	case job.Stdin:
		fmt.Fprintf(s, "command stty -echo; %s '\\033]%s;%s;%%s\\007' %s; command base64 -d >%s/i; command stty echo\n",
			printf, osc, stdinTag, job.ID, d)
		return " <" + d + "/i"
	}
	return ""
}

// farBashFuncs are the far wrapper's fixed parts as functions, defined
// with the hooks of a bash far shell, so that a call's payload carries
// little more than its command (bash reads it a byte per system call):
//
//   - __ptybridge_pre ID ROWS LINE erases the loader's echo, shows the
//     [agent] line, notes the options and prints START;
//   - __ptybridge_loop ID is the stderr loop of a process substitution,
//     in bash alone while no stderr comes: a builtin read takes the first
//     character, dd only what more is there at once;
//   - __ptybridge_post ID STATUS [w] turns a set -e left on off again,
//     waits for the loop (w) and prints END.
//
// They are defined afresh at each first call, outside the hooks' guard:
// a shell hooked by another ptysend gets this one's.
var farBashFuncs = `__ptybridge_pre() {
  builtin printf '\033[%dA\r\033[J%s\n' "$2" "$3"
  __ptybridge_opts=$-
  builtin printf '\033]` + osc + `;S;%s\007' "$1"
}
__ptybridge_loop() {
  set +eu
  local c f="$` + farDir + `/f"
  while IFS= builtin read -r -N 1 c; do
    { builtin printf '\033]` + osc + `;R;%s\007%s' "$1" "$c"
      if IFS= builtin read -t 0; then LC_ALL=C command dd bs=16380 count=1 2>/dev/null; fi
      builtin printf '\033]` + osc + `;r;%s\007' "$1"; } >"$f"
    command cat "$f"
  done
  : >"$f"
}
__ptybridge_post() {
  case $-/$__ptybridge_opts in *e*/*e*) ;; *e*/*) set +e; builtin printf '\033]` + osc + `;R;%s\007%s\n\033]` + osc + `;r;%s\007' "$1" ` + "'" + strings.ReplaceAll(errexitNote, "'", `'\''`) + "'" + ` "$1" >&2 ;; esac
  [ "$3" = w ] && wait $! 2>/dev/null
  builtin printf '\033]` + osc + `;E;%s;%d\007' "$1" "$2"
  unset __ptybridge_opts
}
`

// farBashScript is the far wrapper of bash: the functions above, the
// command in between at the top level (so that declare, local and the
// like behave as typed).
func farBashScript(job FarJob) string {
	var s strings.Builder
	s.WriteString("{\nunset __ptybridge_w\n")
	if job.First {
		s.WriteString(FarIntegration(FarBash))
		s.WriteString(farBashFuncs)
		s.WriteString(StaleDirsCleanup + "\"$$\"\n")
		fmt.Fprintf(&s, "builtin printf '\\033]%s;%s;%%s;%%s;%%s;%%s\\007' %s \"$$\" \"$(command id -un 2>/dev/null)\" \"$(command uname -n 2>/dev/null)\"\n",
			osc, infoTag, job.ID)
	}
	redirects := " 2> >(__ptybridge_loop " + string(job.ID) + ")" + farStdin(&s, job, "builtin printf")
	if job.Terminal {
		redirects = ""
	}
	fmt.Fprintf(&s, "__ptybridge_pre %s %d %s\n", job.ID, max(job.EraseRows, 1), QuotePOSIX(DisplayLine(job.Command)))
	fmt.Fprintf(&s, "%s command eval %s%s\n", pagerSettings, QuotePOSIX(evalText(job.Command)), redirects)
	wait := " w" // for the stderr loop
	if job.Terminal {
		wait = ""
	}
	fmt.Fprintf(&s, "__ptybridge_post %s $?%s\n}\n", job.ID, wait)
	return s.String()
}

func fishStderr(job FarJob, fifo string) string {
	if job.Terminal {
		return ""
	}
	return " 2>" + fifo
}
