package mcpserver

import (
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ptybridge/ptybridge/internal/cli"
	"github.com/ptybridge/ptybridge/internal/modes"
)

// The CLI's messages (errors, hints, notes) are written once, in its words: flags, and ptysend as
// the program. An agent that knows only the tools reads them in theirs: a mode's flag is its tool,
// an option its parameter, as the schema spells them. words rewrites a message so, from the
// modes' own declarations (kong's flag names and the json names of the same fields), so that a
// new flag cannot be missed.

// words is the table: every flag of a mode with a tool (by its name, without "--"), and what it is
// called there.
type words map[string]flagWord

// flagWord is one flag: a mode's own (its tool) or an option (a parameter).
type flagWord struct {
	tool  string // the mode's tool, for the flag that chooses the mode
	param string // the parameter its value goes to ("": none)
	kind  valueKind
	name  bool // its value is a name or a word (a job's, a session's, a program)
}

type valueKind int

const (
	flagOnly valueKind = iota // a bool
	number                    // a number or a duration
	text
	list
)

func newWords(all []modes.Mode) words {
	w := words{}
	w.add(reflect.TypeFor[modes.Options](), "") // the shared options: each flag a parameter of its name
	for _, m := range all {
		if tool := m.About().Tool; tool != "" {
			w.add(reflect.TypeOf(m).Elem(), tool)
		}
	}
	return w
}

// add adds the flags of a mode (or the options: tool ""). A mode's first flag chooses it (its tool);
// its value goes to the first parameter (the field itself, or the first one only the tool has);
// the others are parameters.
func (w words) add(typ reflect.Type, tool string) {
	for i := range typ.NumField() {
		f := typ.Field(i)
		flag, param := flagName(f), jsonName(f)
		if flag == "" || f.Tag.Get("hidden") != "" {
			continue
		}
		fw := flagWord{param: param, kind: kindOf(f.Type), name: param == "session" || param == "cwd"}
		if tool != "" {
			fw.tool, fw.name, tool = tool, true, ""
			if param == "" {
				fw.param = firstToolOnly(typ)
			}
		} else if param == "" {
			continue
		}
		w[flag] = fw
	}
}

// firstToolOnly is the json name of the first field the command line does not have.
func firstToolOnly(typ reflect.Type) string {
	for i := range typ.NumField() {
		if f := typ.Field(i); f.Tag.Get("kong") == "-" && jsonName(f) != "" {
			return jsonName(f)
		}
	}
	return ""
}

// flagName is the field's flag as kong names it; "" for an argument or no flag.
func flagName(f reflect.StructField) string {
	if _, arg := f.Tag.Lookup("arg"); f.Tag.Get("kong") == "-" || arg || !f.IsExported() {
		return ""
	}
	return cli.FlagName(f)
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}

func kindOf(t reflect.Type) valueKind {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return flagOnly
	case reflect.Slice:
		return list
	case reflect.String:
		return text
	}
	return number // and a cli.Duration, and --history=N, --output=ID (a cli.OptionalValue)
}

// The CLI's spellings that words rewrites: a flag (maybe after "ptysend ", maybe with =VALUE),
// and what it leaves of the program's name.
var (
	flagRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:ptysend )?--([a-z][a-z-]*)(?:=(\S+))?`) })
	tokenRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ ('[^']*'|"[^"]*"|[^\s,;:)]+)`) })
	placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z_]*(=[A-Z_]+)?$`) })
	nameRE      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\w./~@+-]+$`) })
	wordsRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ -- ([A-Z]+)\b`) })
	phrases     = strings.NewReplacer(
		"with --stdin=terminal", "without stdin",
		"ptysend -- CMD", "run", "ptysend -- WORDS", "run",
		"ptysend calls", "calls", "ptysend call", "call", "ptysend's", "ptybridge's")
)

// say is text in the tools' words.
func (w words) say(text string) string {
	text = phrases.Replace(text)
	var b strings.Builder
	for {
		loc := flagRE().FindStringSubmatchIndex(text)
		if loc == nil {
			break
		}
		// Not another program's flag (an example of a command), nor the user's program's (what to ask them to run).
		fw, ok := w[text[loc[2]:loc[3]]]
		if !ok || strings.HasSuffix(text[:loc[0]], "ptybridge ") {
			b.WriteString(text[:loc[1]])
			text = text[loc[1]:]
			continue
		}
		b.WriteString(text[:loc[0]])
		val, rest := fw.value(text, loc)
		if fw.tool == "" {
			b.WriteString(fw.render(val))
			text = rest
			continue
		}
		var params []string
		if p := fw.render(val); val != "" && p != fw.param {
			params = append(params, p)
		}
		for {
			next := flagRE().FindStringSubmatchIndex(rest)
			if next == nil || next[0] != 1 || rest[0] != ' ' {
				break
			}
			opt, ok := w[rest[next[2]:next[3]]]
			if !ok || opt.tool != "" {
				break
			}
			v, after := opt.value(rest, next)
			params, rest = append(params, opt.render(v)), after
		}
		if m := wordsRE().FindStringSubmatchIndex(rest); m != nil {
			rest = rest[m[1]:] // " -- CMD": the tool's command, keys or text
		}
		b.WriteString(fw.tool)
		if len(params) > 0 {
			b.WriteString(" with " + strings.Join(params, ", "))
		}
		text = rest
	}
	b.WriteString(text)
	return strings.ReplaceAll(b.String(), "ptysend", "ptybridge")
}

// connectives follow a flag in a sentence, where a name would in an example.
var connectives = []string{"or", "and", "to", "with", "is", "as", "then", "first", "again", "prints", "shows", "lists"}

// value is the value of the flag that flagRE found at loc in s (after its '=', or taken from the
// words after it, when one is there), and the text after it.
func (fw flagWord) value(s string, loc []int) (val, rest string) {
	rest = s[loc[1]:]
	if loc[4] >= 0 {
		return s[loc[4]:loc[5]], rest
	}
	if fw.kind == flagOnly {
		return "", rest
	}
	m := tokenRE().FindStringSubmatch(rest)
	if m == nil {
		return "", rest
	}
	tok := m[1]
	quoted := tok[0] == '\'' || tok[0] == '"'
	ok := placeholder().MatchString(tok)
	switch fw.kind {
	case number:
		ok = ok || tok[0] >= '0' && tok[0] <= '9'
	case list:
		ok = ok || quoted || strings.Contains(tok, "=")
	case text:
		ok = ok || quoted || fw.name && nameRE().MatchString(tok) && !slices.Contains(connectives, tok)
	}
	if !ok {
		return "", rest
	}
	return tok, rest[len(m[0]):]
}

// render is the parameter with its value, as a tool's argument is written: prompt: "^>>> ".
func (fw flagWord) render(val string) string {
	switch {
	case fw.param == "":
		return "(no parameter)"
	case fw.kind == flagOnly:
		return fw.param + ": true"
	case val == "" || placeholder().MatchString(val):
		return fw.param
	}
	if val[0] == '\'' || val[0] == '"' {
		val = val[1 : len(val)-1]
	}
	_, err := strconv.ParseFloat(val, 64)
	switch {
	case fw.kind == number && err == nil:
		return fw.param + ": " + val
	case fw.kind == list:
		return fw.param + ": [" + strconv.Quote(val) + "]"
	}
	return fw.param + ": " + strconv.Quote(val)
}
