// Package modes declares, once, everything ptysend does: each mode is a struct of its own flags
// (kong's tags for the command line, read by cli.Flags; json tags for its MCP tool's parameters) with a Run, which
// reaches the package that does the work (internal/call, repl, jobs, look, human). The command line
// (Main) and the MCP server's tools (internal/mcpserver) are both built from the one list, All, and
// the options modes share.
package modes

import (
	"context"
	"io"
	"reflect"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/cli"
)

// Options are the flags that modes share; a mode says which it takes (every tool takes session).
type Options struct {
	Session  string        `env:"PTYBRIDGE_SESSION" placeholder:"NAME" help:"Bridge session to use (default ptybridge-<user>)." json:"session,omitempty" jsonschema:"the bridge to use, by its session name (see sessions); default: the server's"`
	Timeout  cli.Duration  `default:"10s" placeholder:"DURATION" help:"Interrupt the command after this long without output; output on stderr counts too (default ${default}; seconds, or 90s, 2m; 0 = never). Give a quiet build or test more, e.g. --timeout 60." json:"timeout,omitempty" jsonschema:"stop after this long without output (stdout or stderr): seconds (10) or a duration (\"90s\", \"2m\"); 0 = never; default 10s"`
	MaxTime  cli.Duration  `default:"120s" placeholder:"DURATION" help:"Interrupt the command after this long in all (default ${default}; 0 = never)." json:"max_time,omitempty" jsonschema:"stop after this long in all, including waiting for another call's turn: seconds or a duration; 0 = never; default 120s"`
	Raw      bool          `help:"Print the command's terminal output byte for byte (colours, \\r\\n line endings, progress-bar redraws) instead of clean text." json:"raw,omitempty" jsonschema:"the terminal's exact bytes (colours, carriage returns) instead of the clean text a pipe would carry"`
	WaitFree *cli.Duration `placeholder:"DURATION" help:"With -- WORDS, --repl-start or --repl-eval: when the terminal is busy (a program, a half-typed line, copy mode, a busy REPL), wait up to this long for it to be free instead of refusing (exit 75)." json:"wait_free,omitempty" jsonschema:"when the user is busy in the terminal, wait up to this long for it to be free instead of refusing: seconds or a duration"`
	JSON     bool          `name:"json" help:"With --screen, --status, --history, --sessions or the job modes: print JSON." json:"-"`
}

// Takes says which shared options a mode takes.
type Takes uint8

const (
	TakesLimits Takes = 1 << iota // --timeout, --max-time
	TakesRaw
	TakesWaitFree
	TakesJSON
)

// Env is what a mode runs with: the bridge, the shared options, and the files (Stdin nil: none).
type Env struct {
	Bridge bridge.Bridge
	Options
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Notes gets ptysend's own notes ("ptysend: ..." lines); the command line gives its stderr.
	Notes io.Writer
	// StopsCaught closes once ptysend's stop signals are caught (call.Request's); nil: no signals.
	StopsCaught <-chan struct{}
	// Give, when set (by the MCP server), takes the mode's result as a value of its About's Gives
	// type, beside what it prints; the command line leaves it nil.
	Give func(result any)
}

// give hands the mode's result to the MCP server, when it asks.
func (e *Env) give(result any) {
	if e.Give != nil {
		e.Give(result)
	}
}

// Mode is one thing ptysend does, which the command line chooses with its first field's flag. A
// mode may also have the methods Check (see Check), takeWords (it takes the words after "--",
// otherwise a command's) and chosen (it has several such flags); its own options are tagged
// misplaced.
type Mode interface {
	About() About
	Run(ctx context.Context, e *Env) (int, error)
}

// About is what the command line and the MCP server know of a mode.
type About struct {
	Takes Takes  // the shared options it takes
	Tool  string // its MCP tool (internal/mcpserver's tools.md); none for the command line's modes
	// Local: it runs here even for a remote bridge, not on its host (sessions lists the remote
	// bridges beside the local ones; the others are the command line's own).
	Local bool
	// Gives is a zero value of what the mode hands Env.Give (a struct: the tool's structured
	// result); nil: the tool's result is the command's (stdout, stderr, exit status) or none.
	Gives any
}

// chosen says whether the command line asks for mode m: its first field's flag is given.
func chosen(m Mode) bool {
	if c, ok := m.(interface{ chosen() bool }); ok {
		return c.chosen()
	}
	return !reflect.ValueOf(m).Elem().Field(0).IsZero()
}

// Check refuses arguments that do not fit the mode, before anything
// runs; it also settles the mode's own fields from its flags.
func Check(m Mode) error {
	if c, ok := m.(interface{ Check() error }); ok {
		return c.Check()
	}
	return nil
}

// All lists every mode, each a new value; the command, which needs no
// flag, comes last (its words are what is left on the command line).
func All() []Mode {
	return []Mode{
		&replStart{}, &replEval{}, &replClose{},
		&screen{}, &notify{}, &statusMode{}, &historyMode{}, &outputMode{}, &sessions{},
		&jobStart{}, &jobList{}, &jobOutput{}, &jobWait{}, &jobStop{}, &jobSend{}, &jobKeys{}, &jobScreen{},
		&mcpServer{}, &skill{}, &internal{},
		&command{},
	}
}
