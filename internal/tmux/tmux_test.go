package tmux

import (
	"reflect"
	"testing"
)

func TestParseScreen(t *testing.T) {
	for _, c := range []struct {
		name, out string
		want      Screen
	}{
		{
			name: "a prompt with a half-typed line, the rows padded to the height",
			out:  "s\t%1\t%1\t9\t1\t20\t4\t0\t0\n$ ls\n$ echo hi\n",
			want: Screen{Session: "s", Shared: "%1", Pane: "%1", Rows: []string{"$ ls", "$ echo hi", "", ""}, CursorX: 9, CursorY: 1, Width: 20, Height: 4},
		},
		{
			name: "less on the alternate screen, in copy mode",
			out:  "s\t%1\t%1\t1\t2\t10\t3\t1\t1\na\nb\n:\n",
			want: Screen{Session: "s", Shared: "%1", Pane: "%1", Rows: []string{"a", "b", ":"}, CursorX: 1, CursorY: 2, Width: 10, Height: 3, Alternate: true, InMode: true},
		},
		{
			name: "no shared pane recorded",
			out:  "s\t\t%3\t0\t0\t5\t1\t0\t0\nx\n",
			want: Screen{Session: "s", Pane: "%3", Rows: []string{"x"}, Width: 5, Height: 1},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseScreen(c.out)
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
	if _, err := parseScreen("garbage\n"); err == nil {
		t.Fatal("an unexpected answer must be an error")
	}
	if got := (Screen{Rows: []string{"a", "$ ls   "}, CursorY: 1}).CursorLine(); got != "$ ls" {
		t.Fatalf("cursor line %q", got)
	}
}
