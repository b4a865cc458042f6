package cleantext

import (
	"bytes"
	"strings"
)

// A query in a command's output (device attributes, a status or cursor report, the terminal's
// version, a window size report, a mode's state, a colour, a setting) makes the terminal type its
// answer into the terminal's input, where the shell reads the human's keys. This file reads both
// sides: the queries in the output, and the answers, as the input holds them and as the terminal's
// echo (ECHOCTL: ESC as "^[", BEL as "^G") shows them in the output.

// seqKind is what an escape sequence is to a terminal's conversation.
type seqKind int

const (
	notSeq seqKind = iota // no sequence (too long, malformed), or the bytes end before its end
	other                 // a sequence that asks nothing and answers nothing (colours, titles, keys)
	query
	answer
)

// spelling is how ESC and BEL are written: as the bytes, or as the terminal's echo shows them.
type spelling struct{ esc, bel string }

var (
	raw    = spelling{"\x1b", "\x07"}
	echoed = spelling{"^[", "^G"}
)

const (
	maxCSI    = 64  // parameters and all: longer is no sequence of a terminal's conversation
	maxString = 256 // an OSC or DCS body
)

// seqAt reads the sequence at the start of p, spelled sp: its length and kind; cut reports that p
// ends before the sequence could be read whole (more bytes may complete it).
func seqAt(p []byte, sp spelling) (n int, kind seqKind, cut bool) {
	if !bytes.HasPrefix(p, []byte(sp.esc)) {
		return 0, notSeq, len(p) < len(sp.esc) && bytes.HasPrefix([]byte(sp.esc), p)
	}
	i := len(sp.esc)
	if i == len(p) {
		return 0, notSeq, true
	}
	switch p[i] {
	case '[':
		return csiAt(p, i+1)
	case ']':
		n, body, cut := stringAt(p, i+1, sp, true)
		switch {
		case n == 0:
			return 0, notSeq, cut
		case bytes.HasSuffix(body, []byte(";?")):
			return n, query, false
		case oscAnswers[string(body[:max(0, bytes.IndexByte(body, ';'))])]:
			return n, answer, false // "11;rgb:…", "4;1;rgb:…", "52;c;…"
		}
		return n, other, false
	case 'P':
		n, body, cut := stringAt(p, i+1, sp, false)
		switch {
		case n == 0:
			return 0, notSeq, cut
		case bytes.HasPrefix(body, []byte("$q")) || bytes.HasPrefix(body, []byte("+q")):
			return n, query, false // DECRQSS, XTGETTCAP
		}
		return n, answer, false // ">|tmux 3.3a", "1$r…", "!|…"
	}
	return 0, notSeq, false
}

// oscAnswers are the OSCs that ask with "?" (a colour, the clipboard): their answers.
var oscAnswers = map[string]bool{"4": true, "10": true, "11": true, "12": true, "13": true, "14": true,
	"15": true, "16": true, "17": true, "18": true, "19": true, "52": true}

// csiAt reads a control sequence whose parameters start at p[i].
func csiAt(p []byte, i int) (int, seqKind, bool) {
	start := i
	prefix := byte(0)
	if i < len(p) && bytes.IndexByte([]byte("?>=<"), p[i]) >= 0 {
		prefix, i = p[i], i+1
	}
	params := i
	for i < len(p) && (p[i] >= '0' && p[i] <= '9' || p[i] == ';' || p[i] == ':') {
		i++
	}
	arg := string(p[params:i])
	inter := i
	for i < len(p) && p[i] >= 0x20 && p[i] <= 0x2f {
		i++
	}
	switch {
	case i-start > maxCSI:
		return 0, notSeq, false
	case i == len(p):
		return 0, notSeq, true
	case p[i] < 0x40 || p[i] > 0x7e:
		return 0, notSeq, false
	}
	return i + 1, csiKind(prefix, arg, string(p[inter:i]), p[i]), false
}

func csiKind(prefix byte, arg, inter string, final byte) seqKind {
	first, _, _ := strings.Cut(arg, ";")
	switch {
	case final == 'c' && prefix != '?' && prefix != '<' && (arg == "" || arg == "0"):
		return query // DA, DA2 (>), DA3 (=)
	case final == 'c' && (prefix == '?' || prefix == '>'):
		return answer // "?1;2c", ">84;0;0c"
	case final == 'n' && (prefix == 0 || prefix == '?') && (arg == "5" || arg == "6"):
		return query // DSR: status, cursor
	case final == 'n' && prefix == 0 && arg == "0":
		return answer
	case final == 'R' && (prefix == 0 || prefix == '?') && arg != "":
		return answer // the cursor's position
	case final == 'q' && prefix == '>' && (arg == "" || arg == "0"):
		return query // XTVERSION
	case final == 'p' && inter == "$" && (prefix == 0 || prefix == '?'):
		return query // DECRQM
	case final == 'y' && inter == "$":
		return answer
	case final == 'u' && prefix == '?' && arg == "":
		return query // the kitty keyboard's flags
	case final == 'u' && prefix == '?':
		return answer
	case final == 't' && prefix == 0 && inter == "":
		switch first {
		case "11", "13", "14", "15", "16", "18", "19", "20", "21":
			return query // window reports
		case "1", "2", "3", "4", "5", "6", "8", "9":
			return answer // "8;24;80t" (as output, the same bytes would resize: only echoes are taken)
		}
	}
	return other
}

// stringAt reads an OSC (bel: BEL ends it too) or DCS body starting at p[i], up to its ST: the
// sequence's length (0: none) and the body. Only printable bytes make a body.
func stringAt(p []byte, i int, sp spelling, bel bool) (n int, body []byte, cut bool) {
	for j := i; j < len(p) && j-i <= maxString; j++ {
		rest := p[j:]
		switch {
		case bel && bytes.HasPrefix(rest, []byte(sp.bel)):
			return j + len(sp.bel), p[i:j], false
		case bytes.HasPrefix(rest, []byte(sp.esc+`\`)):
			return j + len(sp.esc) + 1, p[i:j], false
		case len(rest) < len(sp.esc)+1 && (bytes.HasPrefix([]byte(sp.esc+`\`), rest) || bel && bytes.HasPrefix([]byte(sp.bel), rest)):
			return 0, nil, true
		case p[j] < 0x20 || p[j] == 0x7f:
			return 0, nil, false
		}
	}
	return 0, nil, len(p)-i <= maxString
}
