package main

import (
	"errors"
	"strconv"

	"github.com/ptybridge/ptybridge/internal/cli"
	"github.com/ptybridge/ptybridge/internal/look"
)

// The read-only modes (internal/look): they ask the relay and /proc,
// type nothing, and answer while the terminal is busy. Their flags' help
// is short: kong runs every flag's help through a regexp at each parse,
// and long ones cost ptysend's peak memory (the description, given only
// for --help, says more).

// statusMode says whether the terminal is free: ptysend --status.
type statusMode struct {
	Status bool `name:"status" help:"Say whether the terminal is free (exit 0) or what holds it (75)."`
}

func (m *statusMode) chosen() bool  { return m.Status }
func (m *statusMode) check() error  { return nil }
func (m *statusMode) typed() string { return "--status" }
func (m *statusMode) printsJSON()   {}

func (m *statusMode) Run(c call) (int, error) {
	s, err := look.ReadStatus(c.Bridge, c.MaxTime, c.Stderr)
	if perr := s.Print(c.Stdout, c.JSON); err == nil {
		err = perr
	}
	if err != nil {
		return 0, err
	}
	return s.ExitCode(), nil
}

// historyMode lists the commands run at the shell's prompt: ptysend
// --history[=N].
type historyMode struct {
	History cli.OptionalValue `name:"history" help:"List the last commands run at the prompt (--history=N: the last N; 10)."`
	n       int
}

func (m *historyMode) chosen() bool  { return m.History.Set }
func (m *historyMode) typed() string { return "--history" }
func (m *historyMode) printsJSON()   {}

func (m *historyMode) check() error {
	m.n = look.DefaultHistory
	if m.History.Value == "" {
		return nil
	}
	n, err := strconv.Atoi(m.History.Value)
	if err != nil || n < 1 {
		return errors.New("--history=N needs a number of commands, 1 or more")
	}
	m.n = n
	return nil
}

func (m *historyMode) Run(c call) (int, error) {
	return 0, look.History(c.Bridge, m.n, c.MaxTime, c.Stdout, c.Stderr, c.JSON)
}

// outputMode prints what a command of the history printed: ptysend
// --output[=ID].
type outputMode struct {
	Output cli.OptionalValue `name:"output" help:"Print what a command printed (--output=ID; alone: the user's last)."`
	id     int
}

func (m *outputMode) chosen() bool  { return m.Output.Set }
func (m *outputMode) typed() string { return "--output" }

func (m *outputMode) check() error {
	if m.Output.Value == "" {
		return nil
	}
	id, err := strconv.Atoi(m.Output.Value)
	if err != nil || id < 1 {
		return errors.New("--output=ID needs the id of a command, as --history shows it")
	}
	m.id = id
	return nil
}

func (m *outputMode) Run(c call) (int, error) {
	return 0, look.Output(c.Bridge, m.id, c.Raw, c.MaxTime, c.Stdout, c.Stderr)
}
