package cli

import (
	"encoding/json"
	"runtime/debug"
	"testing"
	"time"
)

func TestVersionSaysWhichBuildThisIs(t *testing.T) {
	vcs := func(rev, date, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{
			{Key: "-buildmode", Value: "exe"},
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev},
			{Key: "vcs.time", Value: date},
			{Key: "vcs.modified", Value: modified},
		}
	}
	const rev = "4dfa3c3a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e"
	cases := []struct {
		name     string
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"go install ...@v1.2.3", "v1.2.3", nil, "v1.2.3"},
		{"a clean checkout at a release tag", "v1.2.3", vcs(rev, "2026-11-22T10:00:00Z", "false"), "v1.2.3"},
		{"a clean checkout", "v0.0.0-20261122100000-4dfa3c3a9b8c", vcs(rev, "2026-11-22T10:00:00Z", "false"),
			"4dfa3c3a9b8c (2026-11-22T10:00:00Z)"},
		{"a modified checkout", "v0.0.0-20261122100000-4dfa3c3a9b8c+dirty", vcs(rev, "2026-11-22T10:00:00Z", "true"),
			"4dfa3c3a9b8c+dirty (2026-11-22T10:00:00Z)"},
		{"a modified checkout at a release tag", "v1.2.3+dirty", vcs(rev, "2026-11-22T10:00:00Z", "true"),
			"4dfa3c3a9b8c+dirty (2026-11-22T10:00:00Z)"},
		{"a checkout built by an older go", "(devel)", vcs(rev, "2026-11-22T10:00:00Z", "false"),
			"4dfa3c3a9b8c (2026-11-22T10:00:00Z)"},
		{"go install ...@COMMIT", "v1.2.4-0.20261122100000-4dfa3c3a9b8c", nil, "v1.2.4-0.20261122100000-4dfa3c3a9b8c"},
		{"no version control information", "(devel)", nil, "dev (built without version information)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info := &debug.BuildInfo{Main: debug.Module{Path: "github.com/ptybridge/ptybridge", Version: c.version}, Settings: c.settings}
			if got := VersionFrom(info); got != c.want {
				t.Fatalf("want %q, got %q", c.want, got)
			}
		})
	}
	if got := VersionFrom(nil); got != "dev (built without version information)" {
		t.Fatalf("no build information: got %q", got)
	}
}

func TestDurationTakesSecondsOrGoDurations(t *testing.T) {
	for in, want := range map[string]time.Duration{
		`10`: 10 * time.Second, `0.5`: 500 * time.Millisecond, `0`: 0,
		`"90s"`: 90 * time.Second, `"2m"`: 2 * time.Minute, `"15"`: 15 * time.Second,
	} {
		var d Duration
		if err := json.Unmarshal([]byte(in), &d); err != nil || d.Duration() != want {
			t.Errorf("%s: got %v, %v; want %v", in, d.Duration(), err, want)
		}
	}
	for _, in := range []string{`-1`, `"soon"`, `true`, `"-2s"`} {
		var d Duration
		if err := json.Unmarshal([]byte(in), &d); err == nil {
			t.Errorf("%s: want an error, got %v", in, d.Duration())
		}
	}
}

func TestVersionKey(t *testing.T) {
	for v, want := range map[string]string{
		"v1.2.3": "v1.2.3", "0123456789ab (2026-01-02T03:04:05Z)": "0123456789ab", "v0.0.0-20260102030405-0123456789ab": "0123456789ab",
		"0123456789ab+dirty (2026-01-02T03:04:05Z)": "", "dev (built without version information)": "", "": "",
	} {
		if got := VersionKey(v); got != want {
			t.Errorf("VersionKey(%q) = %q, want %q", v, got, want)
		}
	}
}
