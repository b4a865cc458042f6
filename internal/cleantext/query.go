package cleantext

import "bytes"

// HasQuery reports whether p holds a query that a terminal answers on its input: device
// attributes (CSI c, CSI > c, CSI = c), status and cursor reports (CSI 5 n, CSI 6 n, CSI ? 6 n),
// the terminal's version (CSI > q), a mode's state (CSI ? Ps $ p), a colour (OSC Ps ; ? ...),
// a setting (DCS $ q). The answer lands where the shell reads the human's keys.
func HasQuery(p []byte) bool {
	for i := bytes.IndexByte(p, 0x1b); i >= 0 && i+1 < len(p); i = nextEscape(p, i) {
		switch rest := p[i+2:]; p[i+1] {
		case '[':
			if csiQuery(rest) {
				return true
			}
		case ']':
			if oscQuery(rest) {
				return true
			}
		case 'P':
			if bytes.HasPrefix(rest, []byte("$q")) {
				return true
			}
		}
	}
	return false
}

// altScreens are the alternate screens' private modes, xterm's and the older ones.
var altScreens = []string{"1049", "1047", "47"}

// ScreenSwitch is the alternate screen's mode after p, from m: a full-screen program's (On) or not.
func ScreenSwitch(p []byte, m Mode) Mode {
	for i := bytes.IndexByte(p, 0x1b); i >= 0; i = nextEscape(p, i) {
		if !bytes.HasPrefix(p[i:], []byte("\x1b[?")) {
			continue
		}
		params := p[i+2:]
		end := 1
		for end < len(params) && (params[end] >= '0' && params[end] <= '9' || params[end] == ';') {
			end++
		}
		if end < len(params) && (params[end] == 'h' || params[end] == 'l') {
			m = ModeSwitch(params[:end], params[end] == 'h', m, altScreens)
		}
	}
	return m
}

func nextEscape(p []byte, i int) int {
	if j := bytes.IndexByte(p[i+1:], 0x1b); j >= 0 {
		return i + 1 + j
	}
	return -1
}

// csiQuery: the CSI sequence at the start of s (after ESC [) asks for an answer.
func csiQuery(s []byte) bool {
	prefix := byte(0)
	if len(s) > 0 && (s[0] == '?' || s[0] == '>' || s[0] == '=') {
		prefix, s = s[0], s[1:]
	}
	params := 0
	for params < len(s) && (s[params] >= '0' && s[params] <= '9' || s[params] == ';') {
		params++
	}
	if params == len(s) {
		return false
	}
	switch final := s[params]; {
	case final == 'c':
		return true
	case final == 'n':
		arg := string(s[:params])
		return arg == "5" || arg == "6"
	case final == 'q':
		return prefix == '>'
	case final == '$':
		return prefix == '?' && params+1 < len(s) && s[params+1] == 'p'
	}
	return false
}

// oscQuery: the OSC string at the start of s (after ESC ]) asks for a value with "?".
func oscQuery(s []byte) bool {
	end := bytes.IndexAny(s, "\a\x1b")
	if end < 0 {
		end = len(s)
	}
	body := s[:min(end, 64)]
	return bytes.HasSuffix(body, []byte(";?"))
}
