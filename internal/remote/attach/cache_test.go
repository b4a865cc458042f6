package attach

import (
	"strings"
	"testing"
)

// The host's scripts go through the host user's login shell inside single quotes: nothing in
// them may end the quotes or mean something to fish (backslash) or tcsh ('!', newline).
func TestHostScriptsReadAlikeInEveryLoginShell(t *testing.T) {
	for name, s := range map[string]string{"probe": probeScript, "copy": copyScript} {
		if strings.ContainsAny(s, "'\\!\n") {
			t.Errorf("the %s script holds a quote, backslash, '!' or newline", name)
		}
	}
}

func TestMatchesLocal(t *testing.T) {
	t.Setenv(TestUnameEnv, "")
	if !matchesLocal("Linux", "x86_64") && !matchesLocal("Linux", "aarch64") {
		t.Skip("not built for linux amd64 or arm64")
	}
	if matchesLocal("Darwin", "x86_64") || matchesLocal("Linux", "mips") {
		t.Fatal("another OS or machine matched")
	}
	t.Setenv(TestUnameEnv, "Plan9 mips")
	if !matchesLocal("Plan9", "mips") || matchesLocal("Linux", "x86_64") {
		t.Fatal(TestUnameEnv + " is not taken")
	}
}
