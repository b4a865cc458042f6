package markers

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strings"
)

// Far mode: a shell at the other end of a carrier (ssh, su, sudo -i,
// docker exec...) cannot read the private runtime directory, and /proc
// describes only the local end. Everything then travels through the
// terminal stream, which the relay reads and types into:
//
//  1. A shell without the hooks yet is asked what it is by a one-line
//     probe valid in bash, zsh, dash and fish; it answers with the
//     invisible KIND marker. A shell that cannot run the probe (tcsh, a
//     router's CLI) never answers, and is refused.
//  2. Each call types a short loader line. It turns the terminal's echo
//     off, prints READY, and reads a base64 payload from the terminal
//     into a file in a private directory (mktemp -d, 0700, named after
//     the shell's pid: the first call of a shell removes those of the
//     user's shells that are gone), which it then sources, so cd, exports
//     and functions persist. ptysend types the payload once READY has
//     come, in lines of at most 76 base64 characters (a canonical-mode
//     line is cut at 4095 bytes), ended by Ctrl-D on an empty line.
//  3. The payload is the far wrapper (FarScript): the same [agent] line,
//     START and END markers, pager settings and errexit guard as the
//     local wrapper, the hooks on the first call, and the command's
//     stderr copied to the terminal in R/r frames, which ptysend takes
//     out of the stream as the command's stderr (FrameSplitter).
//
// The hooks also define the loader as a function, so that later calls
// type only " __ptybridge_l <id> && ...".

// Far markers: KIND answers the probe, READY says the loader reads the
// payload (and READ-STDIN that the wrapper reads stdin data), INFO says
// who and where the far shell is.
const (
	kindTag  = "K"
	readyTag = "Y"
	infoTag  = "I"
)

// Ready is the marker the loader prints once it reads the payload.
func Ready(id ID) string { return marker(readyTag, string(id)) }

// ReadyStdin is the marker the far wrapper prints once it reads the
// forwarded stdin.
func ReadyStdin(id ID) string { return marker("Z", string(id)) }

// FarKind is the kind of a far shell, as the probe tells it.
type FarKind string

const (
	FarBash FarKind = "bash"
	FarZsh  FarKind = "zsh"
	FarFish FarKind = "fish"
	FarSh   FarKind = "sh" // a POSIX shell without version variable: dash, ksh, busybox ash
)

// Family is the syntax of the kind.
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
// zsh, dash and fish, it prints the KIND marker with each shell's
// version variable, only one of which is set. Its output first moves the
// cursor up over the prompt and the probe's own echo (rows of them) and
// erases them: the shell then draws its prompt again, as if nothing had
// been typed.
func Probe(rows int) string {
	return fmt.Sprintf(` printf '%s\033]%s;%s;%%s;%%s;%%s\007' "$BASH_VERSION" "$ZSH_VERSION" "$FISH_VERSION"`,
		erase(rows), osc, kindTag)
}

// erase, in a printf format, moves the cursor up rows rows (at least one)
// and erases the screen from there.
func erase(rows int) string { return fmt.Sprintf(`\033[%dA\r\033[J`, max(rows, 1)) }

// ProbeLen is the length of the probe as typed, for the rows its echo
// takes.
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
	switch {
	case f[0] != "" && f[1] == "" && f[2] == "" && !modernBash(f[0]):
		// bash before 4.4 lacks what the bash wrapper uses (read -N,
		// wait for a process substitution): it runs the POSIX one.
		return FarSh, true, true
	case f[0] != "" && f[1] == "" && f[2] == "":
		return FarBash, true, true
	case f[1] != "" && f[0] == "" && f[2] == "":
		return FarZsh, true, true
	case f[2] != "" && f[0] == "" && f[1] == "":
		return FarFish, true, true
	case f[0] == "" && f[1] == "" && f[2] == "":
		return FarSh, true, true
	}
	return "", true, false
}

// modernBash reports whether BASH_VERSION v is 4.4 or later.
func modernBash(v string) bool {
	var major, minor int
	if _, err := fmt.Sscanf(v, "%d.%d", &major, &minor); err != nil {
		return false
	}
	return major > 4 || major == 4 && minor >= 4
}

// markerBody returns what lies between prefix and the next BEL in stream.
func markerBody(stream []byte, prefix string) ([]byte, bool) {
	i := bytes.Index(stream, []byte(prefix))
	if i < 0 {
		return nil, false
	}
	rest := stream[i+len(prefix):]
	j := bytes.IndexByte(rest, '\a')
	if j < 0 {
		return nil, false
	}
	return rest[:j], true
}

// FarInfo is who and where the far shell is, as its first call reports.
type FarInfo struct {
	PID  int
	User string
	Host string
}

// ParseInfo finds the INFO marker of call id in stream.
func ParseInfo(stream []byte, id ID) (FarInfo, bool) {
	body, ok := markerBody(stream, "\x1b]"+osc+";"+infoTag+";"+string(id)+";")
	if !ok {
		return FarInfo{}, false
	}
	f := strings.SplitN(string(body), ";", 3)
	if len(f) != 3 {
		return FarInfo{}, false
	}
	var info FarInfo
	if _, err := fmt.Sscanf(f[0], "%d", &info.PID); err != nil {
		return FarInfo{}, false
	}
	info.User, info.Host = f[1], f[2]
	return info, true
}

// farDir is the far shell's variable holding its private directory.
const farDir = "__ptybridge_d"

// FarLoader is the line typed to run a call of id in the far shell of
// kind: the full loader when the shell has no hooks yet (hooked false),
// else a call of the loader function the hooks defined. The leading
// space keeps it out of history where the shell honours that.
func FarLoader(kind FarKind, id ID, hooked bool) string {
	switch {
	case kind == FarFish && hooked:
		return fmt.Sprintf(" __ptybridge_l %s; and source $%s/w", id, farDir)
	case kind == FarFish:
		return fmt.Sprintf(" set -g %[1]s (mktemp -d -t ptybridge-$fish_pid.XXXXXX); and stty -echo; and printf '\\033]%[2]s;%[3]s;%%s\\007' %[4]s; and begin; base64 -d >$%[1]s/w; stty echo; source $%[1]s/w; end",
			farDir, osc, readyTag, id)
	case hooked && kind.reads():
		return fmt.Sprintf(" __ptybridge_l %s && eval \"$__ptybridge_w\"", id)
	case hooked:
		return fmt.Sprintf(" __ptybridge_l %s && . \"$%s/w\"", id, farDir)
	}
	return fmt.Sprintf(` %[1]s=$(mktemp -d -t ptybridge-$$.XXXXXX) && stty -echo && printf '\033]%[2]s;%[3]s;%%s\007' %[4]s && { base64 -d >"$%[1]s/w"; stty echo; . "$%[1]s/w"; }`,
		farDir, osc, readyTag, id)
}

// reads reports whether the kind's loader function reads the payload
// with the shell's own read -s (echo off without stty) as escaped text
// (decoded by printf %b, no base64): bash, whose read -p prints READY
// once it has turned the echo off. (zsh prints read's prompt before, so
// keys typed at once would be echoed: it reads with stty and base64.)
// The cost of a call is mostly the programs the far shell starts; this
// path starts none.
func (k FarKind) reads() bool { return k == FarBash }

// TypedPayload is the wrapper as typed for the loader of kind (hooked:
// the loader function of the hooks reads it).
func TypedPayload(kind FarKind, hooked bool, script string) string {
	if hooked && kind.reads() {
		return EscapedLines(script)
	}
	return PayloadLines([]byte(script))
}

// EmptyPayload ends the loader's read with nothing in it: a call
// stopped before its payload was typed runs nothing, and the loader turns
// the echo back on.
func EmptyPayload(kind FarKind, hooked bool) string {
	if hooked && kind.reads() {
		return "."
	}
	return "\n\x04"
}

// EscapedLines is text as typed for bash's loader function: "read -rs -d
// ." reads it with echo off, the line breaks are dropped, and printf %b
// decodes it. Every byte that a terminal in canonical mode or the line
// discipline could take for something else (control characters, bytes
// above ASCII), the backslash and the final "." are written as \0ooo;
// lines have at most 76 characters; "." ends it (read -d puts the
// terminal in non-canonical mode, so nothing may follow it: it would stay
// for the next reader).
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

// PayloadLines is data as typed into a terminal for base64 -d: lines of
// at most 76 characters, each ended by a newline, then Ctrl-D at the
// start of a line (end of file in canonical mode).
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
