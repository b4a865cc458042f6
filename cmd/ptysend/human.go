package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/human"
)

// The modes that talk to the human without typing into the pane
// (internal/human).

// screen prints the shared terminal's screen: ptysend --screen [--json].
type screen struct {
	Screen bool `name:"screen" help:"Print the shared terminal's screen as the user sees it now (an editor, a pager, a half-typed line...), and where the cursor is (on stderr; with --json, one JSON object). Types nothing."`
}

func (m *screen) typed() string { return "--screen" }

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

func (m *notify) typed() string { return "--notify" }

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

// confirmAsk is what runs in the popup of ptybridge --confirm, started by
// ptysend itself through tmux: it shows the question and reads the
// human's key. Hidden: no one else has a use for it.
type confirmAsk struct {
	File string `name:"confirm-ask" hidden:"" help:"Internal: ask the user the question in FILE (ptybridge --confirm)."`
}

func (m *confirmAsk) typed() string { return "--confirm-ask" }

func (m *confirmAsk) chosen() bool { return m.File != "" }
func (m *confirmAsk) check() error { return nil }

func (m *confirmAsk) Run(c call) (int, error) {
	if err := human.Answer(m.File, os.Stdin); err != nil {
		return 0, failure.From(err)
	}
	return 0, nil
}
