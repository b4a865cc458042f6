package jobs

import (
	"regexp"
	"testing"
)

func TestLineMatcherFindsTheLineAndWhereItEnds(t *testing.T) {
	type piece struct {
		offset int64
		data   string
	}
	cases := []struct {
		name    string
		re      string
		pieces  []piece
		line    string
		next    int64
		matched bool
	}{
		{"a whole line", "Serving", []piece{{0, "start\nServing HTTP on port 8000\nnext\n"}}, "Serving HTTP on port 8000", 32, true},
		{"a line split across pieces", "port 80+$", []piece{{0, "Serving HTTP on po"}, {18, "rt 8000\nrest"}}, "Serving HTTP on port 8000", 26, true},
		{"the line being written (a prompt)", `^Name\? $`, []piece{{0, "hello\nName? "}}, "Name? ", 12, true},
		{"clean text: colours and redraws", `^100% done$`, []piece{{0, "\x1b[32m10%\r50%\r100% done\x1b[0m\n"}}, "100% done", 27, true},
		{"no match", "never", []piece{{0, "a\nb\n"}}, "", 0, false},
		{"offsets from where the follow began", "b", []piece{{100, "a\nb\n"}}, "b", 104, true},
		{"after dropped output, afresh", "x", []piece{{0, "ab"}, {50, "x\n"}}, "x", 52, true},
		{"the line being written: the next offset follows what came of it", "tail$", []piece{{0, "a\ntail"}}, "tail", 6, true},
		{"a line whose newline comes in the next piece", "Serving HTTP", []piece{{0, "start\nServing HTTP on port 8000"}}, "Serving HTTP on port 8000", 31, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &lineMatcher{re: regexp.MustCompile(c.re), pos: -1}
			var line string
			var next int64
			var ok bool
			for _, p := range c.pieces {
				if line, next, ok = m.feed(p.offset, []byte(p.data)); ok {
					break
				}
			}
			if ok != c.matched || line != c.line || ok && next != c.next {
				t.Fatalf("got %q, next %d, matched %v; want %q, next %d, matched %v", line, next, ok, c.line, c.next, c.matched)
			}
		})
	}
}
