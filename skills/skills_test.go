package skills

import (
	"regexp"
	"strings"
	"testing"
)

// The front matter agents read to decide when to load the skill: a name
// matching the directory, and a description saying when to use it.
func TestPtyBridgeSkillHasItsFrontMatter(t *testing.T) {
	front, body, ok := strings.Cut(strings.TrimPrefix(PtyBridge, "---\n"), "\n---\n")
	if !strings.HasPrefix(PtyBridge, "---\n") || !ok || strings.TrimSpace(body) == "" {
		t.Fatalf("want YAML front matter between --- lines, then the instructions:\n%s", PtyBridge)
	}
	if !regexp.MustCompile(`(?m)^name: ptybridge$`).MatchString(front) {
		t.Errorf("front matter lacks name: ptybridge:\n%s", front)
	}
	desc := regexp.MustCompile(`(?m)^description: (.+)$`).FindStringSubmatch(front)
	if desc == nil || !strings.Contains(desc[1], "Use it when") || len(desc[1]) > 1024 {
		t.Errorf("the description must say when to use the skill, in at most 1024 characters: %q", desc)
	}
}
