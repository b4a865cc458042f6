package cli

import (
	"cmp"
	"encoding"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Flags reads a command line into structs declared with kong's tags (name, default, env, enum,
// sep, hidden, arg, passthrough, embed, kong:"-"), as kong would, for ptysend. ptysend does not
// link kong: its reflective method lookup keeps every exported method of the program in the
// binary, 1.7 MB more to map at every start (0.9 MiB of a call's peak memory, 3.1x its output
// against 2.7x without). Tests check that Flags reads ~50 command lines as kong does.
type Flags struct {
	flags []*flagField
	words reflect.Value // the passthrough argument: the words from the first non-flag on
}

type flagField struct {
	name  string
	value reflect.Value
	tag   flagTag
	seen  bool // on the command line
}

// ErrHelp is Parse's answer to -h or --help (before the words).
var ErrHelp = errors.New("help asked")

// NewFlags reads the flags of the structs (pointers), their embedded structs included.
func NewFlags(structs ...any) *Flags {
	f := &Flags{}
	for _, s := range structs {
		f.add(reflect.ValueOf(s).Elem())
	}
	return f
}

func (f *Flags) add(v reflect.Value) {
	for i := range v.NumField() {
		field, value := v.Type().Field(i), v.Field(i)
		tag := readTag(field.Tag)
		switch {
		case !field.IsExported() || tag.skip:
		case tag.arg:
			f.words = value
		case field.Anonymous || tag.embed:
			f.add(value)
		default:
			f.flags = append(f.flags, &flagField{name: flagName(field.Name, tag), value: value, tag: tag})
		}
	}
}

// flagTag is what Flags reads of a field's tag. The tags are mostly help text: read in one pass,
// not key by key with reflect.StructTag.Lookup (~8 scans of each field's tag, 50 µs a start).
type flagTag struct {
	name, env, def, enum, placeholder string
	hasDefault, skip, arg, embed      bool
}

// readTag reads the key:"value" pairs of tag as reflect.StructTag.Lookup does: the first pair of
// a key counts (when its value does not unquote, the key is taken as absent).
func readTag(tag reflect.StructTag) flagTag {
	var t flagTag
	seen := 0 // bits of tagKeys
	for s := string(tag); ; {
		s = strings.TrimLeft(s, " ")
		i := 0
		for i < len(s) && s[i] > ' ' && s[i] != ':' && s[i] != '"' && s[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(s) || s[i] != ':' || s[i+1] != '"' {
			return t
		}
		key := s[:i]
		s = s[i+1:]
		end := 1
		for end < len(s) && s[end] != '"' {
			if s[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(s) {
			return t
		}
		quoted := s[:end+1]
		s = s[end+1:]
		k := slices.Index(tagKeys, key)
		if k < 0 || seen&(1<<k) != 0 {
			continue // a key Flags does not read (help, json...), or a second pair of one
		}
		seen |= 1 << k
		value, err := strconv.Unquote(quoted)
		if err != nil {
			continue
		}
		switch key {
		case "name":
			t.name = value
		case "env":
			t.env = value
		case "default":
			t.hasDefault, t.def = true, value
		case "enum":
			t.enum = value
		case "placeholder":
			t.placeholder = value
		case "kong":
			t.skip = value == "-"
		case "arg":
			t.arg = true
		case "embed":
			t.embed = true
		}
	}
}

var tagKeys = []string{"name", "env", "default", "enum", "placeholder", "kong", "arg", "embed"}

// FlagName is a field's flag as kong names it: its name tag, else its name in lower case split
// into words at the changes of case ("MaxTime" max-time, "RelayPID" relay-pid, "JSON" json).
func FlagName(field reflect.StructField) string { return flagName(field.Name, readTag(field.Tag)) }

func flagName(field string, tag flagTag) string {
	if tag.name != "" {
		return tag.name
	}
	var b strings.Builder
	r := []rune(field)
	for i, c := range r {
		startsWord := i > 0 && unicode.IsUpper(c) &&
			(unicode.IsLower(r[i-1]) || i+1 < len(r) && unicode.IsLower(r[i+1]))
		if startsWord {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// Parse sets the flags from args, then the defaults and environment variables of those not
// given. The first word that is not a flag, and all after it, go to the passthrough argument;
// "--" too.
func (f *Flags) Parse(args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-h" || a == "--help" {
			return ErrHelp
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		at := slices.IndexFunc(f.flags, func(fl *flagField) bool { return fl.name == name })
		if !strings.HasPrefix(a, "--") || a == "--" || at < 0 {
			f.words.Set(reflect.ValueOf(args[i:]))
			break
		}
		fl := f.flags[at]
		// A bool, or one whose value may be left out (OptionalValue), is given alone.
		if !hasValue && fl.value.Kind() != reflect.Bool && fl.value.Type() != reflect.TypeFor[OptionalValue]() {
			if i+1 == len(args) || strings.HasPrefix(args[i+1], "-") && args[i+1] != "-" {
				kind := strings.ToUpper(fl.value.Kind().String())
				return fmt.Errorf("--%s needs a value: --%s %s", name, name, cmp.Or(fl.tag.placeholder, kind))
			}
			i++
			value = args[i]
		}
		if err := fl.set(value, hasValue); err != nil {
			return fmt.Errorf("--%s: %w", name, err)
		}
		fl.seen = true
	}
	// The flags not given: their environment variable or default. A value outside its flag's enum is
	// refused: the last given counts, as with kong.
	for _, fl := range f.flags {
		switch env := fl.tag.env; {
		case fl.seen:
		case env != "" && os.Getenv(env) != "":
			if err := fl.set(os.Getenv(env), true); err != nil {
				return fmt.Errorf("$%s: %w", env, err)
			}
		case fl.tag.hasDefault:
			if err := fl.set(fl.tag.def, true); err != nil {
				panic("the default of --" + fl.name + ": " + err.Error())
			}
		}
		if enum, value := fl.tag.enum, fl.value.String(); enum != "" && !slices.Contains(strings.Split(enum, ","), value) {
			return fmt.Errorf("--%s must be one of %s but got %q", fl.name, strings.ReplaceAll(enum, ",", ", "), value)
		}
	}
	return nil
}

// set gives the flag value (hasValue: written after '=' or apart, not left out).
func (fl *flagField) set(value string, hasValue bool) error {
	v := fl.value
	if v.Kind() == reflect.Pointer {
		v.Set(reflect.New(v.Type().Elem()))
		v = v.Elem()
	}
	if o, ok := v.Addr().Interface().(*OptionalValue); ok {
		*o = OptionalValue{Set: true, Value: value}
		return nil
	}
	if t, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
		return t.UnmarshalText([]byte(value))
	}
	switch v.Kind() {
	case reflect.Bool:
		b, err := strconv.ParseBool(value)
		if !hasValue {
			b, err = true, nil
		}
		v.SetBool(b)
		return err
	case reflect.String:
		v.SetString(value)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", value)
		}
		v.SetInt(n)
	case reflect.Slice: // repeated: each one more value (sep:"none")
		v.Set(reflect.Append(v, reflect.ValueOf(value)))
	default:
		panic("a flag of type " + v.Type().String())
	}
	return nil
}
