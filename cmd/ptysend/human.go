package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ptybridge/ptybridge/internal/human"
)

// The modes that talk to the human without typing into the pane
// (internal/human).

// screen prints the shared terminal's screen: ptysend --screen [--json].
type screen struct {
	Screen bool `name:"screen" help:"Print the shared terminal's screen as the user sees it now (an editor, a pager, a half-typed line...), and where the cursor is (on stderr; with --json, one JSON object). Types nothing."`
}

func (m *screen) chosen() bool { return m.Screen }
func (m *screen) check() error { return nil }
func (m *screen) printsJSON()  {}

func (m *screen) Run(c call) (int, error) {
	s, err := human.ReadScreen(c.Bridge)
	if err != nil {
		return 0, err
	}
	if c.JSON {
		return 0, json.NewEncoder(c.Stdout).Encode(s)
	}
	fmt.Fprint(c.Stdout, s.Text())
	fmt.Fprintf(c.Stderr, "ptysend: %s\n", s.CursorLine())
	return 0, nil
}

// notify shows a message to the human: ptysend --notify MESSAGE.
type notify struct {
	Message *string `name:"notify" placeholder:"MESSAGE" help:"Show MESSAGE to the user in their terminal(s), as \"[agent] MESSAGE\" on tmux's message line for 10 s, with the terminal bell. Types nothing; returns at once."`
}

func (m *notify) chosen() bool { return m.Message != nil }

func (m *notify) check() error {
	if strings.TrimSpace(*m.Message) == "" {
		return errors.New("--notify needs a message")
	}
	return nil
}

func (m *notify) Run(c call) (int, error) {
	n, err := human.Notify(c.Bridge, *m.Message)
	if err != nil {
		return 0, err
	}
	terminals := "1 terminal"
	if n != 1 {
		terminals = fmt.Sprintf("%d terminals", n)
	}
	fmt.Fprintf(c.Stderr, "ptysend: shown to the user in %s of theirs for %v\n", terminals, human.NoticeTime)
	return 0, nil
}
