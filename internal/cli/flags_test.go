package cli

import (
	"reflect"
	"testing"
)

// readTag must read a tag as reflect.StructTag.Lookup does, key by key.
func FuzzReadTagAgreesWithReflect(f *testing.F) {
	for _, tag := range []string{
		`name:"stdin" enum:"auto,terminal,forward" default:"auto" placeholder:"terminal|forward" help:"Where \"it\" goes." json:"-"`,
		`arg:"" optional:"" passthrough:"" help:"Shell code."`, `kong:"-" json:"command"`, `embed:""`, `env:"PTYBRIDGE_SESSION" default:"10s"`,
		`name:"a\tb"`, `name:"x"help:"y"`, `name: "x"`, `name:"unterminated`, ``, `  default:""  `,
	} {
		f.Add(tag)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tag := reflect.StructTag(s)
		got := readTag(tag)
		for key, value := range map[string]string{"name": got.name, "env": got.env, "enum": got.enum, "placeholder": got.placeholder} {
			if want, _ := tag.Lookup(key); value != want {
				t.Fatalf("%q: %s %q, reflect says %q", s, key, value, want)
			}
		}
		for key, has := range map[string]bool{"default": got.hasDefault, "arg": got.arg, "embed": got.embed} {
			if _, want := tag.Lookup(key); has != want {
				t.Fatalf("%q: %s %v, reflect says %v", s, key, has, want)
			}
		}
		if want, _ := tag.Lookup("default"); got.def != want {
			t.Fatalf("%q: default %q, reflect says %q", s, got.def, want)
		}
		if want := tag.Get("kong") == "-"; got.skip != want {
			t.Fatalf("%q: skip %v, reflect says %v", s, got.skip, want)
		}
	})
}

func TestFlagNamesSplitWordsAsKongDoes(t *testing.T) {
	for field, want := range map[string]string{"MaxTime": "max-time", "RelayPID": "relay-pid", "JSON": "json",
		"LateStderrTTY": "late-stderr-tty", "NoEnter": "no-enter", "Raw": "raw", "PIDFile": "pid-file"} {
		if got := flagName(field, flagTag{}); got != want {
			t.Errorf("%s: %s, want %s", field, got, want)
		}
	}
	if got := flagName("Cmd", flagTag{name: "repl-start"}); got != "repl-start" {
		t.Errorf("a name tag: %s", got)
	}
}
