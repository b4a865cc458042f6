package modes

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/ptybridge/ptybridge/internal/cli"
)

// ptysend reads its command line without kong (see cli.Flags); kong, which reads the same tags,
// is the reference: these tests hold the two to the same results and the same help.

var update = flag.Bool("update", false, "rewrite usage.txt from kong's help")

// kongParse reads args as kong does, into new options and modes; version is true when kong
// printed the version (and would have exited).
func kongParse(t *testing.T, args []string, help *bytes.Buffer) (opts Options, version versionFlag, modes []Mode, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r == (helpShown{}) && strings.Contains(help.String(), "v-test") {
			version.Version = true
		} else if r != nil {
			panic(r)
		}
	}()
	modes = All()
	plugins := make(kong.Plugins, len(modes))
	for i, m := range modes {
		plugins[i] = m
	}
	description, err := os.ReadFile("help.txt")
	if err != nil {
		t.Fatal(err)
	}
	parser, err := kong.New(&struct {
		*Options
		Version kong.VersionFlag `help:"Print the version and exit."`
		Modes   kong.Plugins     `embed:""`
	}{Options: &opts, Modes: plugins},
		kong.Vars{"version": "v-test"},
		kong.Name("ptysend"),
		kong.Description(strings.TrimSuffix(string(description), "\n")),
		kong.Writers(help, help),
		kong.TypeMapper(reflect.TypeFor[cli.OptionalValue](), optionalValueMapper{}),
		kong.Exit(func(int) { panic(helpShown{}) }))
	if err != nil {
		t.Fatal(err)
	}
	_, err = parser.Parse(args)
	return opts, version, modes, err
}

type helpShown struct{}

// optionalValueMapper gives kong cli.OptionalValue: --history, or --history=5 (never apart).
type optionalValueMapper struct{}

func (optionalValueMapper) IsBool() bool { return true }

func (optionalValueMapper) Decode(ctx *kong.DecodeContext, target reflect.Value) error {
	o := cli.OptionalValue{Set: true}
	if ctx.Scan.Peek().Type == kong.FlagValueToken {
		o.Value = fmt.Sprint(ctx.Scan.Pop().Value)
	}
	target.Set(reflect.ValueOf(o))
	return nil
}

func flagsParse(args []string) (Options, versionFlag, []Mode, error) {
	var opts Options
	var version versionFlag
	modes := All()
	err := cli.NewFlags(flagStructs(&opts, &version, modes)...).Parse(args)
	return opts, version, modes, err
}

func TestFlagsReadCommandLinesAsKongDoes(t *testing.T) {
	t.Setenv("PTYBRIDGE_SESSION", "from-env")
	for _, args := range [][]string{
		nil, {"ls"}, {"--", "ls"}, {"--", "echo", "hi"}, {"--"}, {"--", "--status"}, {"--status", "--", "ls"},
		{"--status"}, {"--status", "--json"}, {"--json", "--status"}, {"--status", "--session", "x"}, {"--session=x", "--status"},
		{"--history"}, {"--history=5"}, {"--history", "--json"}, {"--history", "3"}, {"--history="},
		{"--output"}, {"--output=12"}, {"--output=3", "--raw"}, {"--raw", "--output"}, {"--output", "7"},
		{"--status", "--history"}, {"--statuses"}, {"--status", "3"}, {"--raw", "ls"}, {"--raw=false", "--", "x"},
		{"--timeout", "60", "--", "make", "test"}, {"--timeout=1.5", "--max-time", "2m", "--raw", "--", "x"},
		{"--wait-free", "5", "--", "ls"}, {"--max-time=0", "--", "ls", "--timeout", "1"}, {"--session", "x", "--", "ls"},
		{"--repl-start", "python3"}, {"--repl-start=node", "--prompt", "^> ", "--continuation=^\\.\\.\\. "},
		{"--repl-eval", "1 + 1"}, {"--repl-eval=-1"}, {"--repl-close"}, {"--screen", "--json"},
		{"--notify", "hello there"}, {"--notify=-"}, {"--sessions"}, {"--version"}, {"--version", "--status"},
		{"--job", "web", "--cwd", "srv", "--env", "A=1", "--env=B=2,3", "--show", "--", "npm", "run", "dev"},
		{"--jobs", "--json"}, {"--job-output", "web", "--since", "61", "--stderr"}, {"--job-wait=web", "--until", "Serving HTTP", "--since=3"},
		{"--job-stop", "web"}, {"--job-send", "web", "--no-enter", "--", "q"}, {"--job-keys", "web", "--", "C-c"}, {"--job-screen", "web"},
		{"--stdin=terminal", "--", "read a"}, {"--stdin", "forward", "--", "wc"}, {"--stdin=tty", "--", "x"},
		{"--mcp", "--timeout", "30"}, {"--skill"}, {"--since", "4"}, {"--cwd=x", "--", "ls"},
		{"--relay", "/tmp/s", "--relay-pane", "%1", "--relay-pid", "42"}, {"--job-spare", "x", "--job-spare-pid", "9"},
		{"--late-stderr", "abc", "--late-stderr-tty", "/dev/pts/3"}, {"--confirm-ask", "/tmp/q"},
		{"--timeout"}, {"--timeout", "--", "ls"}, {"--timeout", "-1", "--", "ls"}, {"--timeout=", "--", "ls"},
		{"--timeout", "soon", "--", "ls"}, {"--relay-pid", "many"}, {"--foo", "--", "ls"}, {"-x"}, {"--job-output"},
	} {
		kOpts, kVersion, kModes, kErr := kongParse(t, args, &bytes.Buffer{})
		opts, version, modes, err := flagsParse(args)
		switch {
		case kVersion.Version: // kong printed it and exited: the rest is unset
			if !version.Version || err != nil {
				t.Errorf("%q: kong prints the version, Flags gives %+v, %v", args, version, err)
			}
		case (kErr == nil) != (err == nil):
			t.Errorf("%q: kong says %v, Flags %v", args, kErr, err)
		case err == nil && !reflect.DeepEqual([]any{opts, version, modes}, []any{kOpts, kVersion, kModes}):
			t.Errorf("%q:\nFlags %+v %+v %s\nkong  %+v %+v %s", args, opts, version, show(modes), kOpts, kVersion, show(kModes))
		}
	}
}

// A number written apart from --history or --output, which take theirs after '=', is told so.
func TestANumberApartFromItsFlagIsToldToFollowTheEquals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--history", "3"}, "use --history=3"},
		{[]string{"--output", "7"}, "use --output=7"},
		{[]string{"--status", "3"}, "not several"},
		{[]string{"--history", "--", "3"}, "not several"},
	} {
		opts, _, modes, err := flagsParse(c.args)
		if err != nil {
			t.Fatalf("%q: refused: %v", c.args, err)
		}
		if _, err := choose(&opts, modes); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: want an error saying %q, got %v", c.args, c.want, err)
		}
	}
}

func TestAFlagWithoutItsValueSaysWhatItTakes(t *testing.T) {
	for args, want := range map[string]string{
		"--timeout":           "--timeout needs a value: --timeout DURATION",
		"--job-output --json": "--job-output needs a value: --job-output NAME",
		"--timeout soon":      `--timeout: "soon" is not a duration`,
		"--stdin tty":         `--stdin must be one of auto, terminal, forward but got "tty"`,
	} {
		_, _, _, err := flagsParse(strings.Fields(args))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %v, want %q...", args, err, want)
		}
	}
}

func TestHelpIsAskedBeforeTheWordsOnly(t *testing.T) {
	for _, c := range []struct {
		args []string
		help bool
	}{
		{[]string{"--help"}, true}, {[]string{"-h"}, true}, {[]string{"--timeout", "5", "--help"}, true},
		{[]string{"--", "grep", "--help"}, false}, {[]string{"ls", "-h"}, false}, {[]string{"--screen"}, false},
	} {
		_, _, _, err := flagsParse(c.args)
		if got := errors.Is(err, cli.ErrHelp); got != c.help {
			t.Errorf("%q: help = %v, want %v", c.args, got, c.help)
		}
	}
}

// ptysend --help prints usage.txt, which must be what kong renders from the flags' tags and
// help.txt at 80 columns: a flag or a help text changed without -update fails here.
func TestUsageIsKongsHelp(t *testing.T) {
	t.Setenv("COLUMNS", "80")
	var help bytes.Buffer
	func() {
		defer func() {
			if r := recover(); r != nil && r != (helpShown{}) {
				panic(r)
			}
		}()
		kongParse(t, []string{"--help"}, &help)
	}()
	if *update {
		if err := os.WriteFile("usage.txt", help.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if help.String() != usage {
		t.Fatalf("usage.txt is not kong's help: run go test ./internal/modes -run Usage -update\nkong's:\n%s", help.String())
	}
	if !strings.Contains(usage, "--job-screen=NAME") || strings.Contains(usage, "--relay") {
		t.Fatalf("the help must list the modes' flags and hide the internal ones:\n%s", usage)
	}
}

// FuzzFlagsAgreeWithKong: command lines made of ptysend's flags, values and words (each byte of
// the input picks one) read the same with cli.Flags as with kong, or are refused by both. (Beyond
// these, kong has quirks Flags does not copy: it splits -abc into -a bc even among a command's
// words, turns invalid UTF-8 into U+FFFD, and takes --=0 for "--".)
func FuzzFlagsAgreeWithKong(f *testing.F) {
	tokens := []string{"--", "ls", "echo hi", "3", "-1", "-", "", "x=1", "2m", "web",
		"--status", "--history", "--history=5", "--history=", "--output", "--output=7", "--json", "--raw", "--raw=false",
		"--session", "--session=s", "--timeout", "--timeout=60", "--max-time", "--wait-free", "--wait-free=5",
		"--repl-start", "--repl-start=python3", "--prompt", "--continuation=x", "--repl-eval", "--repl-eval=-1", "--repl-close",
		"--screen", "--notify", "--notify=hi", "--sessions", "--job", "--job=web", "--cwd", "--env", "--env=A=1", "--show",
		"--jobs", "--job-output", "--since", "--since=4", "--stderr", "--job-wait", "--until", "--job-stop", "--job-send",
		"--no-enter", "--job-keys", "--job-screen=web", "--mcp", "--skill", "--stdin", "--stdin=terminal", "--stdin=tty",
		"--relay-pid", "--relay-pid=4", "--foo", "-x"}
	for _, seed := range [][]byte{{10}, {22, 1}, {11, 0, 1}, {38, 9, 42, 8, 0, 2}, {31}, {56, 14, 0, 1}} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, picks []byte) {
		var args []string
		for _, p := range picks {
			args = append(args, tokens[int(p)%len(tokens)])
		}
		kOpts, _, kModes, kErr := kongParse(t, args, &bytes.Buffer{})
		opts, _, modes, err := flagsParse(args)
		// What the command line comes to: the mode chosen, or a refusal.
		if kErr == nil {
			_, kErr = choose(&kOpts, kModes)
		}
		if err == nil {
			_, err = choose(&opts, modes)
		}
		if (kErr == nil) != (err == nil) {
			t.Fatalf("%q: kong says %v, Flags %v", args, kErr, err)
		}
		if err == nil && !reflect.DeepEqual([]any{opts, modes}, []any{kOpts, kModes}) {
			t.Fatalf("%q:\nFlags %+v %s\nkong  %+v %s", args, opts, show(modes), kOpts, show(kModes))
		}
	})
}

// show is the modes that differ from their zero value, with their fields.
func show(modes []Mode) string {
	var b strings.Builder
	for _, m := range modes {
		if v := reflect.ValueOf(m).Elem(); !v.IsZero() {
			fmt.Fprintf(&b, "%T%+v ", m, v.Interface())
		}
	}
	return b.String()
}
