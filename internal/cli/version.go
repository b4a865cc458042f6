package cli

import (
	"runtime/debug"
	"strings"
)

// Version is what --version prints for both tools: the module version of
// a release (go install ...@v1.2.3), else the revision and commit date of
// the checkout go build stamped, "+dirty" when it had changes.
func Version() string {
	info, _ := debug.ReadBuildInfo()
	return VersionFrom(info)
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
