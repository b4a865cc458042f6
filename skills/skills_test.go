package skills

import (
	"io/fs"
	"os"
	"path/filepath"
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

// The messages the skill, README, docs and --help quote are the ones the
// code prints: an agent waits for the very words.
func TestQuotedMessagesAreTheOnesTheCodePrints(t *testing.T) {
	var code strings.Builder
	filepath.WalkDir("../internal", func(path string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			b, _ := os.ReadFile(path)
			code.Write(b)
		}
		return err
	})
	docs, _ := filepath.Glob("../docs/*.md")
	quoted := regexp.MustCompile("`(ptysend: [^`]+)`|\"(ptysend: [^\"]+)")
	// The words up to the first placeholder or quoted part: <what>, "...",
	// %s, a capital standing for a number (row R).
	literal := regexp.MustCompile(`^([^<"%…A-Z]|[A-Z][a-z])*`)
	for _, path := range append(docs, "ptybridge/SKILL.md", "../README.md", "../internal/modes/help.txt") {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range quoted.FindAllStringSubmatch(strings.ReplaceAll(string(text), "\n", " "), -1) {
			msg := strings.TrimSuffix(literal.FindString(m[1]+m[2]), "...")
			// "ptysend: %s" prints some: then the rest is the code's.
			rest := strings.TrimPrefix(msg, "ptysend: ")
			if rest != "" && !strings.Contains(code.String(), msg) && !strings.Contains(code.String(), rest) {
				t.Errorf("%s quotes %q, which no code prints", path, msg)
			}
		}
	}
}
