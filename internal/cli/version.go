package cli

import (
	"runtime/debug"
	"strings"
)

// Version is what --version prints for both tools, from the binary's
// build information: the module version when it was built from a
// release (go install ...@v1.2.3), else the revision and commit date of
// the checkout it was built in (go build stamps them), with "+dirty" when
// the checkout had changes.
func Version() string {
	info, _ := debug.ReadBuildInfo()
	return VersionFrom(info)
}

// isPseudoVersion reports a Go pseudo-version (v0.0.0-20060102150405-abcdef123456,
// v1.2.4-0.20060102150405-..., v1.2.4-pre.0.20060102150405-...), which names
// a commit, not a release. (No regexp: this runs at every start of ptysend.)
func isPseudoVersion(v string) bool {
	v, _, _ = strings.Cut(v, "+")
	i := strings.LastIndexByte(v, '-')
	if i < 15 || len(v)-i-1 != 12 || strings.Trim(v[i+1:], "0123456789abcdef") != "" {
		return false
	}
	stamp := v[i-14 : i]
	sep := v[i-15]
	return strings.Trim(stamp, "0123456789") == "" && (sep == '-' || sep == '.')
}

// VersionFrom is Version for the given build information (nil: none).
func VersionFrom(info *debug.BuildInfo) string {
	if info == nil {
		return noVersion
	}
	v := info.Main.Version
	release := v != "" && v != "(devel)" && !isPseudoVersion(v) && !strings.Contains(v, "+dirty")
	if release {
		return v
	}
	var rev, date string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			date = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev != "" {
		out := rev[:min(len(rev), 12)]
		if dirty {
			out += "+dirty"
		}
		if date != "" {
			out += " (" + date + ")"
		}
		return out
	}
	if v != "" && v != "(devel)" {
		return v // a pseudo-version: go install ...@COMMIT or @latest without tags
	}
	return noVersion
}

// noVersion is a binary whose build recorded neither a module version
// nor its checkout (go build -buildvcs=false, or in a git worktree,
// which go does not stamp).
const noVersion = "dev (built without version information)"
