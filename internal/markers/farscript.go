package markers

import (
	"strconv"
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
	sh, id := job.Kind.Family(), string(job.ID)
	d := `"$` + farDir + `"`
	if sh == Fish {
		d = "$" + farDir
	}
	// The forwarded stdin is typed in base64 after READ-STDIN, and read
	// with the echo off; an empty one needs no typing.
	stdin := ""
	switch {
	case job.Terminal:
	case job.EmptyStdin:
		stdin = " </dev/null"
	case job.Stdin:
		stdin = " <" + d + "/i"
	}
	stderr := " 2>" + d + "/e." + id
	template := "far.sh"
	vars := []string{"@ID@", id, "@ERASE@", erase(job.EraseRows), "@DISPLAY@", sh.quote(DisplayLine(job.Command))}
	switch job.Kind {
	case FarBash:
		template, stderr = "far.bash", " 2> >(__ptybridge_loop "+id+")"
		vars = append(vars, "@ROWS@", strconv.Itoa(max(job.EraseRows, 1)))
	case FarZsh:
		stderr = " 2> >(" + strings.ReplaceAll(strings.TrimSuffix(shellFile("stderr-loop.zsh"), "\n"), "@ID@", id) + ")"
	case FarFish:
		template = "far.fish"
		vars = append(vars, "@STDERR_LOOP@", fishQuote(strings.TrimSuffix(shellFile("stderr-loop.sh"), "\n")),
			"@COMMAND@", fishQuote(" "+job.Command), "@PAGER@", fishPagerSettings(), "@STDIN@", stdin)
	case FarSh:
		loop := "(exec 3>\"$1/k.$2\"; rm -f \"$1/k.$2\"\n" + shellFile("stderr-loop.sh") + "echo >&3) &"
		vars = append(vars, "@STDERR_LOOP@", QuotePOSIX(loop))
	}
	if job.Terminal {
		stderr = ""
	}
	if sh != Fish {
		vars = append(vars, "@BUILTIN@", sh.builtin(), "@RUN@", evalLine(sh, job.Command, stderr+stdin),
			"@ERREXIT_NOTE@", QuotePOSIX(errexitNote))
	}
	if job.First {
		stale := sh.quote(strings.TrimSuffix(shellFile("stale-dirs.sh"), "\n"))
		vars = append(vars, "@HOOKS@\n", farHooks(job.Kind), "@STALE_DIRS@", "command sh -c "+stale+" sh")
	}
	return strings.NewReplacer(vars...).Replace(lines(shellFile(template), map[string]bool{
		"first":       job.First,
		"clear-stdin": !job.Stdin,
		"read-stdin":  job.Stdin && !job.EmptyStdin,
		"stdin":       job.Stdin,
		"loop":        !job.Terminal && job.Kind != FarZsh,
		"terminal":    job.Terminal,
	}))
}

// farHooks is the hooks for a far shell of kind: the events as locally, a
// history filter that matches the loader lines, and the loader function.
// bash deletes the first loader's line from its history, and then the
// probe's line before it.
func farHooks(kind FarKind) string {
	switch kind {
	case FarBash:
		return hooks("bash", " __ptybridge_*", " "+farDir+"=") +
			strings.ReplaceAll(shellFile("far-hooks.bash"), "@ERREXIT_NOTE@", QuotePOSIX(errexitNote))
	case FarFish:
		return hooks("fish", "", "") + shellFile("far-hooks.fish")
	}
	return hooks(string(kind), "", " __ptybridge_") + strings.ReplaceAll(shellFile("far-hooks.sh"), "@BUILTIN@", kind.Family().builtin())
}
