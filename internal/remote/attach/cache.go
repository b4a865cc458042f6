package attach

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/ptybridge/ptybridge/internal/cli"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/remote"
)

// The host's cache: ${XDG_CACHE_HOME:-$HOME/.cache}/ptybridge/VERSION-SUM/ holds copies of the
// local binaries, VERSION-SUM naming their version and contents. The scripts below run there
// with sh -c 'SCRIPT' sh ARGS: they hold no single quote, backslash, '!' or newline, so that
// every login shell (sh, bash, zsh, fish, tcsh) hands them to sh unchanged.

// shFuncs: chk refuses a directory that is a link, another user's, or writable by others; sum
// prints a file's sha256.
const shFuncs = `set -f; u=$(id -u); ` +
	`chk() { if [ -L "$1" ]; then echo "bad $1 is a symbolic link"; exit 0; fi; set -- "$1" $(ls -ldn "$1"); ` +
	`[ "$4" = "$u" ] || { echo "bad $1 is owned by uid $4, not by you (uid $u)"; exit 0; }; ` +
	`case $2 in ?????w*|????????w*) echo "bad $1 has mode $2: other users can write to it"; exit 0;; esac; }; ` +
	`sum() { if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1"; else shasum -a 256 "$1"; fi 2>/dev/null | cut -d" " -f1; }; `

// probeScript ($1: the directory's name; $2: the version key (cli.VersionKey) of a ptybridge
// installed on the host that will do, or "-") says, a line each: "uname OS ARCH"; "installed DIR
// VERSION..." for a ptybridge on the PATH with ptysend beside it, and nothing more when its
// version has the key $2 (a tag or commit, or a pseudo-version ending in the commit);
// otherwise it makes the cache directory if needed, checks it, and says "dir PATH", then
// "sum NAME SHA256" for each binary there, or "nodir WHY" (it cannot be made: a read-only or
// full disk) or "bad WHY" (it is not safe to use) and nothing more.
const probeScript = shFuncs +
	`echo "uname $(uname -s) $(uname -m)"; ` +
	`if [ "$2" = - ]; then :; else p=$(command -v ptybridge 2>/dev/null); case $p in /*) i=$(dirname "$p"); ` +
	`if [ -x "$i/ptysend" ]; then v=$("$p" --version 2>/dev/null | head -n 1); echo "installed $i $v"; case "$v " in "$2 "*|*-"$2 "*) exit 0;; esac; fi;; esac; fi; ` +
	`base=${XDG_CACHE_HOME:-$HOME/.cache}/ptybridge; d=$base/$1; ` +
	`umask 077; for x in "$base" "$d"; do if [ -e "$x" ] || [ -L "$x" ]; then chk "$x"; fi; done; ` +
	`if e=$(mkdir -p "$d" 2>&1); then :; else echo "nodir $d: $e"; exit 0; fi; ` +
	`chk "$base"; chk "$d"; chmod 700 "$d"; echo "dir $d"; ` +
	`for f in ptybridge ptysend ptysend-mcp; do if [ -f "$d/$f" ]; then echo "sum $f $(sum "$d/$f")"; fi; done`

// copyScript ($1: the file, $2: its sha256) writes stdin to the file, in place only when its
// sum is $2: "ok", or why not.
const copyScript = shFuncs +
	`umask 077; chk "$(dirname "$1")"; if e=$(cat 2>&1 >"$1.tmp"); then :; else rm -f "$1.tmp"; echo "bad cannot write $1: $e"; exit 0; fi; ` +
	`s=$(sum "$1.tmp"); if [ "$s" = "$2" ]; then chmod 700 "$1.tmp" && mv -f "$1.tmp" "$1" && echo ok; ` +
	`else rm -f "$1.tmp"; echo "bad the copy of $1 has sha256 ${s:-unknown (neither sha256sum nor shasum runs)}, not $2"; fi`

// localBinary is one of the binaries to copy, next to ptybridge.
type localBinary struct{ name, path, sum string }

// localBinaries are ptybridge, ptysend and, when there, ptysend-mcp, with their sums.
func localBinaries() ([]localBinary, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var bins []localBinary
	for _, name := range []string{"ptybridge", "ptysend", "ptysend-mcp"} {
		path := filepath.Join(filepath.Dir(exe), name)
		if name == "ptybridge" {
			path = exe
		}
		f, err := os.Open(path)
		if err != nil {
			if name == "ptysend-mcp" {
				continue
			}
			return nil, &failure.Error{Msg: "ptybridge --host copies " + name + " to the host, and it is not next to ptybridge (" + path + ")",
				Hint: "build both: scripts/bridge, or go install ./cmd/..."}
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		bins = append(bins, localBinary{name, path, hex.EncodeToString(h.Sum(nil))})
	}
	return bins, nil
}

// cacheName is the cache directory's name: the version and a digest of the binaries' sums.
func cacheName(bins []localBinary) string {
	h := sha256.New()
	for _, b := range bins {
		fmt.Fprintf(h, "%s %s\n", b.name, b.sum)
	}
	v, _, _ := strings.Cut(cli.Version(), " ") // without a date, or "(built without ...)"
	version := []byte(v)
	for i, c := range version {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			version[i] = '_'
		}
	}
	return fmt.Sprintf("%.40s-%x", version, h.Sum(nil)[:6])
}

// TestUnameEnv, for tests only, is the `uname -sm` that the local binaries are taken to be
// built for, instead of GOOS and GOARCH's.
const TestUnameEnv = "PTYBRIDGE_TEST_LOCAL_UNAME"

// matchesLocal says whether the host's `uname -s` and `uname -m` run the local binaries.
func matchesLocal(osName, machine string) bool {
	if u := os.Getenv(TestUnameEnv); u != "" {
		return u == osName+" "+machine
	}
	oses := map[string]string{"linux": "Linux", "darwin": "Darwin", "freebsd": "FreeBSD", "openbsd": "OpenBSD", "netbsd": "NetBSD"}
	arches := map[string][]string{"amd64": {"x86_64", "amd64"}, "arm64": {"aarch64", "arm64"}, "386": {"i386", "i486", "i586", "i686"},
		"arm": {"armv6l", "armv7l", "arm"}, "riscv64": {"riscv64"}, "ppc64le": {"ppc64le"}, "s390x": {"s390x"}}
	return oses[runtime.GOOS] == osName && slices.Contains(arches[runtime.GOARCH], machine)
}

// install returns the directory of the host's ptybridge and ptysend: one installed on the
// host's PATH whose version is this one's (a release, or a commit without changes), else the
// cache, where it copies the local binaries missing or whose sum differs. It runs nothing it
// copied.
func install(r *remote.Record, out io.Writer) (string, error) {
	bins, err := localBinaries()
	if err != nil {
		return "", err
	}
	version := cli.Version()
	want := cli.VersionKey(version)
	if !remote.SafeWord(want) {
		want = "-"
	}
	probe, err := runScript(r, nil, probeScript, cacheName(bins), want)
	if err != nil {
		return "", err
	}
	var osName, machine, dir, installed, installedVersion string
	sums := map[string]string{}
	for _, line := range strings.Split(probe, "\n") {
		kind, rest, _ := strings.Cut(line, " ")
		switch kind {
		case "uname":
			osName, machine, _ = strings.Cut(rest, " ")
		case "installed":
			installed, installedVersion, _ = strings.Cut(rest, " ")
		case "nodir":
			return "", diskError(r, "cannot create the cache directory "+rest, bins, version)
		case "bad":
			return "", &failure.Error{Msg: "the cache directory on " + r.Dest + " is not usable: " + rest,
				Hint: "it must be a directory of yours, mode 0700, not writable by others: fix or remove it on the host, or set XDG_CACHE_HOME there"}
		case "dir":
			dir = rest
		case "sum":
			name, sum, _ := strings.Cut(rest, " ")
			sums[name] = sum
		}
	}
	if installed != "" {
		if cli.VersionKey(installedVersion) == want && remote.SafeWord(installed) {
			fmt.Fprintf(out, "ptybridge: using the ptybridge installed on %s in %s (%s, this one's version)\r\n", r.Dest, installed, installedVersion)
			return installed, nil
		}
		fmt.Fprintf(out, "ptybridge: %s has ptybridge %q in %s, not this one's version (%s): using a copy of this one instead\r\n",
			r.Dest, installedVersion, installed, cli.Version())
	}
	if !matchesLocal(osName, machine) {
		return "", &failure.Error{
			Msg:  fmt.Sprintf("%s runs %s %s, and this ptybridge is built for %s/%s: its binaries cannot run there", r.Dest, osName, machine, runtime.GOOS, runtime.GOARCH),
			Hint: installHint(version) + "; or build ptybridge for the host (GOOS and GOARCH) and run ptybridge --host with that build; or open the bridge there yourself: ptybridge -- ssh " + r.Dest,
		}
	}
	if !remote.SafeWord(dir) {
		return "", &failure.Error{Msg: fmt.Sprintf("the cache directory on %s, %q, has characters ptybridge does not pass through a remote shell", r.Dest, dir),
			Hint: "set XDG_CACHE_HOME on the host to a plain path (letters, digits, / . _ -)"}
	}
	for _, b := range bins {
		if sums[b.name] == b.sum {
			continue
		}
		what := "copying"
		if sums[b.name] != "" {
			what = "replacing (its checksum differs)"
		}
		fmt.Fprintf(out, "ptybridge: %s %s to %s:%s\r\n", what, b.name, r.Dest, dir)
		f, err := os.Open(b.path)
		if err != nil {
			return "", err
		}
		res, err := runScript(r, f, copyScript, dir+"/"+b.name, b.sum)
		f.Close()
		if err != nil {
			return "", err
		}
		if res = strings.TrimSpace(res); res != "ok" {
			return "", diskError(r, "copying "+b.name+" to "+r.Dest+": "+strings.TrimPrefix(res, "bad "), bins, version)
		}
	}
	return dir, nil
}

// installHint says how to install this version of ptybridge on the host, for ptybridge --host
// to use it.
func installHint(version string) string {
	if key := cli.VersionKey(version); key != "" {
		return "go install github.com/ptybridge/ptybridge/cmd/...@" + key + " on the host (this version, on the PATH of its ssh commands): ptybridge --host uses it instead of copying"
	}
	return "go install github.com/ptybridge/ptybridge/cmd/...@latest on the host (on the PATH of its ssh commands) and the same release here: " +
		"ptybridge --host uses a host's install of its own version instead of copying (this build, " + version + ", matches none)"
}

// diskError is a cache that cannot be written: what the host said, and what to do about it.
func diskError(r *remote.Record, msg string, bins []localBinary, version string) error {
	msg = strings.Join(strings.Fields(msg), " ")
	var size int64
	for _, b := range bins {
		if fi, err := os.Stat(b.path); err == nil {
			size += fi.Size()
		}
	}
	var hint string
	switch {
	case strings.Contains(msg, "No space left") || strings.Contains(msg, "quota"):
		hint = fmt.Sprintf("the disk of the host's cache is full: free %d MB there (df -h ~/.cache on %s), then run ptybridge --host again; or: ", size>>20+1, r.Dest)
	case strings.Contains(msg, "Read-only file system"):
		hint = "the host's home (or its ~/.cache) is read-only: make it writable, or set XDG_CACHE_HOME for ssh commands on the host to a writable directory; or: "
	default:
		hint = "check that the directory is yours and writable on " + r.Dest + "; or: "
	}
	return &failure.Error{Msg: msg + " (ptybridge --host keeps its binaries there)", Hint: hint + installHint(version)}
}

// runScript runs sh -c script over the master with args (SafeWords) and stdin, and returns its stdout.
func runScript(r *remote.Record, stdin io.Reader, script string, args ...string) (string, error) {
	if strings.ContainsAny(script, "'\\!\n") {
		panic("a host script holds a character some login shells read")
	}
	words := append([]string{"sh", "-c", "'" + script + "'", "sh"}, args...)
	cmd := r.Command(remote.OverMaster(stdin == nil), words...)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", &failure.Error{Msg: fmt.Sprintf("running sh on %s: %v: %s", r.Dest, err, strings.TrimSpace(stderr.String())),
			Hint: "check that the connection works (ssh " + r.Dest + " true) and that sh runs there; then run ptybridge --host again"}
	}
	return stdout.String(), nil
}
