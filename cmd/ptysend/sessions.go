package main

import (
	"os"

	"github.com/ptybridge/ptybridge/internal/session"
)

// sessions lists the user's bridges: ptysend --sessions [--json].
type sessions struct {
	List bool `name:"sessions" help:"List the user's bridges: name, user@host and shell where commands run, free or busy, attached terminals (--json: an array of objects)."`
}

func (m *sessions) printsJSON() {}

func (m *sessions) chosen() bool { return m.List }

func (m *sessions) check() error { return nil }

func (m *sessions) Run(c call) (int, error) {
	exe, _ := os.Executable()
	list, err := session.List(exe)
	if err != nil {
		return 0, err
	}
	return 0, session.PrintList(c.Stdout, list, c.JSON)
}

func (m *sessions) typed() string { return "--sessions" }
