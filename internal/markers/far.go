package markers

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
)

// Far mode: a shell at the other end of a carrier (ssh, su, sudo -i,
// docker exec...) cannot read the private runtime directory, and /proc
// describes only the local end. Everything then goes through the terminal:
//
//  1. A shell without the hooks yet is asked what it is by a probe, and
//     answers with KIND. A shell that cannot run it (tcsh, a router's CLI)
//     never answers, and is refused.
//  2. Each call types a loader line (later, a function of the hooks). It
//     turns the echo off, prints READY, and reads the payload that ptysend
//     then types (in lines of at most 76 characters: a canonical-mode line
//     is cut at 4095 bytes) into a file of a private directory, which it
//     sources, so cd, exports and functions persist.
//  3. The payload is the far wrapper (FarScript); the command's stderr
//     comes in R/r frames on the terminal (FrameSplitter).

// KIND answers the probe, READY: the loader reads the payload, INFO: who
// and where the far shell is.
const (
	kindTag  = "K"
	readyTag = "Y"
	infoTag  = "I"
)

// Ready is the marker the loader prints once it reads the payload, and
// ReadyStdin the one the far wrapper prints once it reads the stdin.
func Ready(id ID) string { return marker(readyTag, string(id)) }

func ReadyStdin(id ID) string { return marker("Z", string(id)) }

type FarKind string

const (
	FarBash FarKind = "bash"
	FarZsh  FarKind = "zsh"
	FarFish FarKind = "fish"
	FarSh   FarKind = "sh" // a POSIX shell without version variable: dash, ksh, busybox ash
)

func (k FarKind) Family() Shell {
	switch k {
	case FarZsh:
		return Zsh
	case FarFish:
		return Fish
	}
	return POSIX
}

// Probe is the line typed into a far shell without hooks: valid in bash,
// zsh, dash and fish, it prints the KIND marker with each shell's version
// variable, only one of which is set. It first erases the prompt and its
// own echo (rows of them), as if nothing had been typed.
func Probe(rows int) string {
	return fmt.Sprintf(` printf '%s\033]%s;%s;%%s;%%s;%%s\007' "$BASH_VERSION" "$ZSH_VERSION" "$FISH_VERSION"`,
		erase(rows), osc, kindTag)
}

// erase is printf's format that clears the rows the typed line's echo took, from the row above
// the cursor up, and leaves the cursor at the first. Each row is cleared by itself: tmux keeps a
// screen cleared whole (ESC[J from its top row) in the scrollback.
func erase(rows int) string {
	rows = max(rows, 1)
	s := fmt.Sprintf(`\033[%dA\r\033[K`, rows) + strings.Repeat(`\033[B\033[K`, rows-1)
	if rows > 1 {
		s += fmt.Sprintf(`\033[%dA`, rows-1)
	}
	return s
}

func ProbeLen() int { return len(Probe(1)) }

// ParseProbeAnswer finds the KIND marker in stream. found is false while
// it has not come (whole); ok is false when the answer names no shell
// ptysend drives (a shell that printed the variables' names literally).
func ParseProbeAnswer(stream []byte) (kind FarKind, found, ok bool) {
	body, found := markerBody(stream, "\x1b]"+osc+";"+kindTag+";")
	if !found {
		return "", false, false
	}
	f := strings.Split(string(body), ";")
	if len(f) != 3 || strings.ContainsAny(string(body), "$\x1b") {
		return "", true, false
	}
	kind = FarSh
	for i, k := range []FarKind{FarBash, FarZsh, FarFish} {
		if f[i] == "" {
			continue
		}
		if kind != FarSh {
			return "", true, false
		}
		kind = k
	}
	var major, minor int
	n, _ := fmt.Sscanf(f[0], "%d.%d", &major, &minor) // f[0] is bash's version, if any
	if kind == FarBash && (n != 2 || major < 4 || major == 4 && minor < 4) {
		// bash before 4.4 lacks what the bash wrapper uses (read -N,
		// wait for a process substitution): it runs the POSIX one.
		kind = FarSh
	}
	return kind, true, true
}

// markerBody is what lies between prefix and the next BEL in stream.
func markerBody(stream []byte, prefix string) ([]byte, bool) {
	_, rest, found := bytes.Cut(stream, []byte(prefix))
	body, _, whole := bytes.Cut(rest, []byte("\a"))
	return body, found && whole
}

// FarInfo is who and where the far shell is, as its first call reports.
type FarInfo struct {
	PID        int
	User, Host string
}

func ParseInfo(stream []byte, id ID) (info FarInfo, ok bool) {
	body, ok := markerBody(stream, "\x1b]"+osc+";"+infoTag+";"+string(id)+";")
	f := strings.SplitN(string(body), ";", 3)
	if !ok || len(f) != 3 {
		return FarInfo{}, false
	}
	if _, err := fmt.Sscanf(f[0], "%d", &info.PID); err != nil {
		return FarInfo{}, false
	}
	info.User, info.Host = f[1], f[2]
	return info, true
}

// farDir is the far shell's variable holding its private directory.
const farDir = "__ptybridge_d"

// FarLoader is the line typed to run a call of id in the far shell of
// kind: the full loader, or a call of the loader function of the hooks.
// The leading space keeps it out of history where the shell honours that.
// mktemp takes the whole template, not -t: BSD's -t is a prefix it adds
// its own suffix to, a name stale-dirs.sh would not know.
func FarLoader(kind FarKind, id ID, hooked bool) string {
	switch {
	case kind == FarFish && hooked:
		return fmt.Sprintf(" __ptybridge_l %s; and source $%s/w", id, farDir)
	case kind == FarFish:
		return fmt.Sprintf(" set -g %[1]s (mktemp -d (test -n \"$TMPDIR\"; and echo $TMPDIR; or echo /tmp)/ptybridge-$fish_pid.XXXXXX); and stty -echo; and printf '\\033]%[2]s;%[3]s;%%s\\007' %[4]s; and begin; base64 -d >$%[1]s/w; stty echo; source $%[1]s/w; end",
			farDir, osc, readyTag, id)
	case hooked && kind.reads():
		return fmt.Sprintf(" __ptybridge_l %s && eval \"$__ptybridge_w\"", id)
	case hooked:
		return fmt.Sprintf(" __ptybridge_l %s && . \"$%s/w\"", id, farDir)
	}
	return fmt.Sprintf(` %[1]s=$(mktemp -d "${TMPDIR:-/tmp}/ptybridge-$$.XXXXXX") && stty -echo && printf '\033]%[2]s;%[3]s;%%s\007' %[4]s && { base64 -d >"$%[1]s/w"; stty echo; . "$%[1]s/w"; }`,
		farDir, osc, readyTag, id)
}

// reads reports whether the kind's loader function reads the payload as
// escaped text with read -s, starting no program (most of a call's cost):
// bash, whose read -p prints READY once the echo is off. (zsh prints it
// before: keys typed at once would be echoed.)
func (k FarKind) reads() bool { return k == FarBash }

func TypedPayload(kind FarKind, hooked bool, script string) string {
	if hooked && kind.reads() {
		return EscapedLines(script)
	}
	return PayloadLines([]byte(script))
}

// EmptyPayload ends the loader's read with nothing in it: a call stopped
// before its payload was typed runs nothing, and the echo comes back on.
func EmptyPayload(kind FarKind, hooked bool) string {
	if hooked && kind.reads() {
		return "."
	}
	return "\n\x04"
}

// EscapedLines is text as typed for bash's loader function, which reads it
// with "read -rs -d .", drops the line breaks and decodes it with printf
// %b. Control characters, bytes above ASCII, the backslash and "." are
// written as \0ooo, in lines of at most 76 characters. Nothing may follow
// the final ".": read -d puts the terminal in non-canonical mode, and the
// rest would stay for the next reader.
func EscapedLines(text string) string {
	var b strings.Builder
	b.Grow(len(text) + len(text)/8 + 4)
	line := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		piece := string(c)
		if c < 0x20 || c >= 0x7f || c == '\\' || c == '.' {
			piece = fmt.Sprintf("\\0%03o", c)
		}
		if line+len(piece) > 76 {
			b.WriteByte('\n')
			line = 0
		}
		b.WriteString(piece)
		line += len(piece)
	}
	b.WriteString(".")
	return b.String()
}

// PayloadLines is data as typed into a terminal for base64 -d, ended by
// Ctrl-D at the start of a line (end of file in canonical mode).
func PayloadLines(data []byte) string {
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	b.Grow(len(enc) + len(enc)/76 + 2)
	for len(enc) > 0 {
		n := min(len(enc), 76)
		b.WriteString(enc[:n])
		b.WriteByte('\n')
		enc = enc[n:]
	}
	b.WriteByte(0x04)
	return b.String()
}

type FarJob struct {
	ID      ID
	Command string
	Kind    FarKind
	// First: the shell has no hooks yet; this call installs them and
	// reports who and where the shell is (INFO).
	First bool
	// Stdin: the command reads the stdin typed after READ-STDIN.
	// EmptyStdin: the forwarded stdin is empty; the command reads /dev/null.
	Stdin, EmptyStdin bool
	// Terminal: the command's stderr and stdin stay on the terminal, as a
	// REPL's do (its prompts go to stderr).
	Terminal bool
	// EraseRows is how many rows the prompt and the loader's echo took.
	EraseRows int
}

// FarScript is the payload that runs job in the far shell. It is one
// block: a payload cut short (ptysend stopped while typing it) is a syntax
// error, and nothing of it runs.
func FarScript(job FarJob) string {
	sh, id := job.Kind.Family(), string(job.ID)
	d := `"$` + farDir + `"`
	if sh == Fish {
		d = "$" + farDir
	}
	stdin := "" // the forwarded stdin is typed after READ-STDIN; an empty one is not
	switch {
	case job.Terminal:
	case job.EmptyStdin:
		stdin = " </dev/null"
	case job.Stdin:
		stdin = " <" + d + "/i"
	}
	stderr := " 2>" + d + "/e." + id
	template := "far.sh"
	loop := lines(shellFile("stderr-loop.sh"), map[string]bool{"dash": job.Kind == FarSh})
	vars := []string{"@ID@", id, "@ERASE@", erase(job.EraseRows), "@DISPLAY@", sh.quote(DisplayLine(job.Command)),
		"@STDERR_LOOP@", sh.quote(strings.TrimSuffix(loop, "\n"))}
	switch job.Kind {
	case FarBash:
		template, stderr = "far.bash", " 2> >(__ptybridge_loop "+id+")"
		vars = append(vars, "@ROWS@", strconv.Itoa(max(job.EraseRows, 1)))
	case FarZsh:
		stderr = " 2> >(" + strings.ReplaceAll(strings.TrimSuffix(shellFile("stderr-loop.zsh"), "\n"), "@ID@", id) + ")"
	case FarFish:
		template, stderr = "far.fish", "" // far.fish redirects the stderr of its block
	}
	if job.Terminal {
		stderr = ""
	}
	vars = append(vars, commandVars(sh, job.Command, stderr+stdin)...)
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

// farHooks is the hooks for a far shell of kind, whose history filter
// matches the loader lines, and its loader function. bash deletes the
// first loader's line from its history (its @OURS@).
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
