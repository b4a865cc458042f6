// Package cli is what ptybridge and ptysend share on the command line.
package cli

import (
	"cmp"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// Duration is a flag value: a Go duration ("90s", "2m") or seconds ("10", "0.5"); zero: no limit.
type Duration time.Duration

func (d *Duration) UnmarshalText(b []byte) error {
	s := strings.TrimSpace(string(b))
	secs, err := strconv.ParseFloat(s, 64)
	v := time.Duration(secs * float64(time.Second))
	if err != nil {
		if v, err = time.ParseDuration(s); err != nil {
			return fmt.Errorf("%q is not a duration: use seconds (10) or a unit (90s, 2m)", s)
		}
		secs = v.Seconds()
	}
	if secs < 0 {
		return fmt.Errorf("%q is negative", s)
	}
	*d = Duration(v)
	return nil
}

func (d Duration) Duration() time.Duration { return time.Duration(d) }

// UnmarshalJSON takes seconds (a JSON number) or a duration string (MCP tools' limits; their
// schema lets nothing else through).
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) != nil {
		s = string(b)
	}
	return d.UnmarshalText([]byte(s))
}

// OptionalValue is a flag whose value may be left out: --history or --history=5, not the next word.
type OptionalValue struct {
	Set   bool
	Value string // "" when given without one
}

// Words are a command's words after "--", without it (a passthrough argument keeps it).
func Words(w []string) []string {
	if len(w) > 0 && w[0] == "--" {
		return w[1:]
	}
	return w
}

// fallbackHint is the hint line of an error that brought none: every error has one.
const fallbackHint = "retry; if it fails the same way, show this message to the user"

// Report prints err as "tool: error: ..." and "hint: ...", and returns the exit code.
func Report(w io.Writer, tool string, err error) int {
	e := failure.From(err)
	switch {
	case e.Verbatim != "":
		fmt.Fprint(w, e.Verbatim)
	default:
		fmt.Fprintf(w, "%s: error: %s\nhint: %s\n", tool, e.Msg, cmp.Or(e.Hint, fallbackHint))
	}
	return e.ExitCode()
}

// RelayFlags are the hidden flags with which tmux starts a relay (see Bridge.RelayCommand): the
// tool that set up the bridge runs as its relay.
type RelayFlags struct {
	Relay     string `hidden:"" help:"Internal: serve the pane's output stream on this socket." json:"-"`
	RelayPane string `hidden:"" json:"-"`
	RelayPID  int    `hidden:"" json:"-"`
	RelayJob  string `hidden:"" json:"-"` // a job window's: its relay.JobConfig, JSON in hex
}

func (f RelayFlags) Requested() bool { return f.Relay != "" }

// Run runs the relay on standard input and output.
func (f RelayFlags) Run() error {
	// A relay mostly waits, one stream at a time: it needs no second processor, whose idle threads
	// would only take CPU from the shell and tmux.
	runtime.GOMAXPROCS(1)
	cfg := relay.Config{Socket: f.Relay, PaneID: f.RelayPane, PanePID: f.RelayPID}
	if f.RelayJob != "" {
		js, err := hex.DecodeString(f.RelayJob)
		if err == nil {
			cfg.Job = &relay.JobConfig{}
			err = json.Unmarshal(js, cfg.Job)
		}
		if err != nil {
			return fmt.Errorf("--relay-job: %w", err)
		}
	}
	return relay.Run(cfg)
}

// Version is what --version prints: a release's version, else the revision, "+dirty", commit date.
// A build that sets stamp says that instead.
func Version() string {
	if stamp != "" {
		return stamp
	}
	info, _ := debug.ReadBuildInfo()
	return VersionFrom(info)
}

// stamp is a version set at link time (-ldflags "-X github.com/ptybridge/ptybridge/internal/cli.stamp=v1.2.3"),
// for a packager whose build Go cannot stamp (a tarball, a worktree); the tests build two different
// binaries of one version with it (remote bridges use a host's own install of the same version).
var stamp string

// VersionKey is what names the source of a build of version v (as Version says it) exactly: a
// release's tag, or a commit's first 12 hex digits (a clone's build says them, go install
// @COMMIT a pseudo-version ending in them); "" when nothing does (a dev build, local changes).
// Two builds of one key do the same (a remote bridge uses a host's install of its own key).
func VersionKey(v string) string {
	word, _, _ := strings.Cut(v, " ")
	switch {
	case word == "" || word == "dev" || strings.Contains(word, "+"):
		return ""
	case isPseudoVersion(word):
		return word[strings.LastIndexByte(word, '-')+1:]
	}
	return word
}

// isPseudoVersion reports a Go pseudo-version, of a commit, not a release:
// v0.0.0-20060102150405-abcdef123456, v1.2.4-0.2006..., v1.2.4-pre.0.2006...
// (no regexp: this runs at every start of ptysend).
func isPseudoVersion(v string) bool {
	v, _, _ = strings.Cut(v, "+")
	i := strings.LastIndexByte(v, '-')
	if i < 15 || len(v)-i-1 != 12 || strings.Trim(v[i+1:], "0123456789abcdef") != "" {
		return false
	}
	return strings.Trim(v[i-14:i], "0123456789") == "" && (v[i-15] == '-' || v[i-15] == '.')
}

// VersionFrom is Version for the given build information (nil: none).
func VersionFrom(info *debug.BuildInfo) string {
	if info == nil {
		return noVersion
	}
	v := info.Main.Version
	versioned := v != "" && v != "(devel)"
	if versioned && !isPseudoVersion(v) && !strings.Contains(v, "+dirty") {
		return v // a release
	}
	var rev, dirty, date string
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value[:min(len(s.Value), 12)]
		case s.Key == "vcs.modified" && s.Value == "true":
			dirty = "+dirty"
		case s.Key == "vcs.time" && s.Value != "":
			date = " (" + s.Value + ")"
		}
	}
	switch {
	case rev != "":
		return rev + dirty + date
	case versioned:
		return v // a pseudo-version: go install ...@COMMIT or @latest without tags
	}
	return noVersion
}

// noVersion: go build -buildvcs=false, or in a git worktree.
const noVersion = "dev (built without version information)"
