package relay

import (
	"bufio"
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestAnswersRoundTrip(t *testing.T) {
	start := time.Unix(1700000000, 123456789)
	end := start.Add(1500 * time.Millisecond)
	two := 2
	full := Entry{ID: 7, Who: ByUser, Command: "ls /nonexistent; echo 'a b'\n\tx", Status: &two, Start: start, End: &end,
		DurationMS: 1500, Dir: "/srv/a b;c", ShellPID: 42, OutputBytes: 1 << 30, OutputLeftOut: 99}
	running := Entry{ID: 8, Who: ByAgent, Command: "", Running: true, Start: start, Dir: ""}
	for _, a := range []Answer{
		{Version: protocolVersion},
		{Version: protocolVersion, Error: "the history holds no command with id 3"},
		{Version: protocolVersion, PaneID: "%0", PanePID: 4242, Shell: "running:4243", ShellDir: "/home/u",
			Call: &Call{Call: "make test", Since: start, Queued: 2}, Running: &running},
		{Version: protocolVersion, Call: &Call{Since: start}},
		{Version: protocolVersion, Entries: []Entry{full, running}},
		{Version: protocolVersion, Entry: &full, Size: 12},
	} {
		var buf bytes.Buffer
		buf.Write(appendAnswer(nil, &a))
		buf.WriteString("the output")
		rd := bufio.NewReader(&buf)
		got, err := readAnswer(rd)
		if err != nil {
			t.Fatalf("%+v: %v", a, err)
		}
		if a.Entry != nil { // an output's entry comes back in Entries too
			got.Entries = nil
		}
		if len(a.Entries) > 0 {
			got.Entry = nil
		}
		if !reflect.DeepEqual(utc(got), utc(&a)) {
			t.Errorf("sent %+v\ngot  %+v", a, got)
		}
		if rest, _ := io.ReadAll(rd); string(rest) != "the output" {
			t.Errorf("the bytes after the answer: %q", rest)
		}
	}
}

// utc puts every time of a into UTC, for comparisons.
func utc(a *Answer) *Answer {
	c := *a
	fix := func(e *Entry) *Entry {
		if e == nil {
			return nil
		}
		x := *e
		x.Start = x.Start.UTC()
		if x.End != nil {
			end := x.End.UTC()
			x.End = &end
		}
		return &x
	}
	c.Running, c.Entry = fix(c.Running), fix(c.Entry)
	c.Entries = nil
	for i := range a.Entries {
		c.Entries = append(c.Entries, *fix(&a.Entries[i]))
	}
	if c.Call != nil {
		call := *c.Call
		call.Since = call.Since.UTC()
		c.Call = &call
	}
	return &c
}

func TestAnAnswerOfAnotherVersionIsReadNoFurther(t *testing.T) {
	a, err := readAnswer(bufio.NewReader(strings.NewReader("ptybridge-query 8\nsomething new\n")))
	if err != nil || a.Version != 8 {
		t.Fatalf("got %+v, %v", a, err)
	}
	for _, bad := range []string{"", "HTTP/1.1 200 OK\n", "ptybridge-query 7\nentry 1 user\nend\n", "ptybridge-query 7\ncall x 1 x\nend\n", "ptybridge-query 7\nerror 414141\nend\n"} {
		if _, err := readAnswer(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("%q must not read", bad)
		}
	}
}
