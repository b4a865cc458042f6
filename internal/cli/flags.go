package cli

import (
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
	byName map[string]*flagField
	words  reflect.Value // the passthrough argument: the words from the first non-flag on
	seen   map[*flagField]bool
}

type flagField struct {
	name  string
	value reflect.Value
	tag   reflect.StructTag
}

// ErrHelp is Parse's answer to -h or --help (before the words).
var ErrHelp = errors.New("help asked")

// NewFlags reads the flags of the structs (pointers), their embedded structs included.
func NewFlags(structs ...any) *Flags {
	f := &Flags{byName: map[string]*flagField{}, seen: map[*flagField]bool{}}
	for _, s := range structs {
		f.add(reflect.ValueOf(s).Elem())
	}
	return f
}

func (f *Flags) add(v reflect.Value) {
	for i := range v.NumField() {
		field, value := v.Type().Field(i), v.Field(i)
		switch {
		case !field.IsExported() || field.Tag.Get("kong") == "-":
		case hasTag(field.Tag, "arg"):
			f.words = value
		case field.Anonymous || hasTag(field.Tag, "embed"):
			if value.Kind() == reflect.Pointer {
				value = value.Elem()
			}
			f.add(value)
		default:
			f.byName[FlagName(field)] = &flagField{name: FlagName(field), value: value, tag: field.Tag}
		}
	}
}

func hasTag(tag reflect.StructTag, key string) bool {
	_, ok := tag.Lookup(key)
	return ok
}

// FlagName is a field's flag as kong names it: its name tag, else its name in lower case split
// into words at the changes of case ("MaxTime" max-time, "RelayPID" relay-pid, "JSON" json).
func FlagName(field reflect.StructField) string {
	if name := field.Tag.Get("name"); name != "" {
		return name
	}
	var b strings.Builder
	r := []rune(field.Name)
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
		fl := f.byName[name]
		if !strings.HasPrefix(a, "--") || a == "--" || fl == nil {
			f.words.Set(reflect.ValueOf(args[i:]))
			break
		}
		if !hasValue && !takesNoValue(fl.value) {
			if i+1 == len(args) || strings.HasPrefix(args[i+1], "-") && args[i+1] != "-" {
				return fmt.Errorf("--%s needs a value: --%s %s", name, name, placeholder(fl))
			}
			i++
			value = args[i]
		}
		if err := fl.set(value, hasValue); err != nil {
			return fmt.Errorf("--%s: %w", name, err)
		}
		f.seen[fl] = true
	}
	if err := f.fillUnset(); err != nil {
		return err
	}
	return f.checkEnums()
}

// checkEnums refuses a value outside its flag's enum: the last given counts, as with kong.
func (f *Flags) checkEnums() error {
	for _, fl := range f.byName {
		enum := fl.tag.Get("enum")
		if value := fl.value.String(); enum != "" && !slices.Contains(strings.Split(enum, ","), value) {
			return fmt.Errorf("--%s must be one of %s but got %q", fl.name, strings.ReplaceAll(enum, ",", ", "), value)
		}
	}
	return nil
}

// fillUnset gives the flags not on the command line their environment variable or default.
func (f *Flags) fillUnset() error {
	for _, fl := range f.byName {
		if f.seen[fl] {
			continue
		}
		if env := fl.tag.Get("env"); env != "" && os.Getenv(env) != "" {
			if err := fl.set(os.Getenv(env), true); err != nil {
				return fmt.Errorf("$%s: %w", env, err)
			}
		} else if def, ok := fl.tag.Lookup("default"); ok {
			if err := fl.set(def, true); err != nil {
				panic("the default of --" + fl.name + ": " + err.Error())
			}
		}
	}
	return nil
}

// takesNoValue is a flag given alone: a bool, or one whose value may be left out (OptionalValue).
func takesNoValue(v reflect.Value) bool {
	return v.Kind() == reflect.Bool || v.Type() == reflect.TypeFor[OptionalValue]()
}

func placeholder(fl *flagField) string {
	if p := fl.tag.Get("placeholder"); p != "" {
		return p
	}
	return strings.ToUpper(fl.value.Kind().String())
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
