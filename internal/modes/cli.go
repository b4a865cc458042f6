package modes

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"runtime"
	"syscall"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/call"
	"github.com/ptybridge/ptybridge/internal/cli"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/human"
	"github.com/ptybridge/ptybridge/internal/jobs"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/remote"
	"github.com/ptybridge/ptybridge/internal/rundir"
	"github.com/ptybridge/ptybridge/skills"
)

// Main runs ptysend with the command line args and returns its exit status.
func Main(args []string) int {
	var remoteCall string
	if len(args) == 2 && args[0] == remote.ArgvFlag { // a remote bridge's call, on its host
		var status int
		var done bool
		if args, remoteCall, status, done = onHost(args[1]); done {
			return status
		}
	}
	var opts Options
	var version versionFlag
	modes := All()
	switch err := cli.NewFlags(flagStructs(&opts, &version, modes)...).Parse(args); {
	case errors.Is(err, cli.ErrHelp):
		_, _ = io.WriteString(os.Stdout, usage)
		return 0
	case err != nil:
		return usageError(err.Error())
	case version.Version:
		fmt.Println(cli.Version())
		return 0
	}
	m, err := choose(&opts, modes)
	if err != nil {
		return usageError(err.Error())
	}
	if opts.Session == "" {
		opts.Session = bridge.DefaultName()
	}
	if err := bridge.ValidateName(opts.Session); err != nil {
		return cli.Report(os.Stderr, "ptysend", err)
	}
	if r, ok := remote.Find(rundir.Path(), opts.Session); ok && !m.About().Local {
		return forward(r, m, args)
	}
	exe, _ := os.Executable()
	ctx, env := context.Background(), &Env{Options: opts, Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Notes: os.Stderr}
	env.Bridge = bridge.Bridge{Name: opts.Session, RuntimeDir: rundir.Path(), Exe: exe}
	if t, ok := m.(interface{ typed() string }); ok {
		env.Bridge.AskTurn(t.typed()) // the relay answers while ptysend sets up what follows
	}
	// A mode that runs or waits on something: one processor (it mostly waits: a second costs CPU
	// in idle threads that look for work, taken from the shell and tmux on a busy machine) and
	// its stop signals caught. A read-only mode, which answers at once, skips both (the stop of
	// the world that GOMAXPROCS makes; the runtime's handling of the first signal.Notify, 0.15-0.3
	// ms: a thread of its own and a handshake with it per signal).
	if m.About().Takes&TakesLimits != 0 {
		runtime.GOMAXPROCS(1)
		var stop func()
		ctx, env.StopsCaught, stop = stopContext()
		defer stop()
		if remoteCall != "" && rundir.Ensure(rundir.Path()) == nil {
			defer remote.Register(rundir.Path(), remoteCall, env.StopsCaught)()
		}
	}
	status, err := m.Run(ctx, env)
	if err != nil {
		return cli.Report(os.Stderr, "ptysend", err)
	}
	return status
}

type versionFlag struct {
	Version bool `help:"Print the version and exit." json:"-"`
}

// flagStructs are the structs whose fields are ptysend's flags, in the order of its help: the
// shared options, --version, then each mode's (the command's words among them).
func flagStructs(opts *Options, version *versionFlag, modes []Mode) []any {
	structs := []any{opts, version}
	for _, m := range modes {
		structs = append(structs, m)
	}
	return structs
}

// usage is ptysend --help: kong's rendering of the flags' tags and help.txt at 80 columns, made
// by the test TestUsageIsKongsHelp (go test ./internal/modes -run Usage -update writes it).
//
//go:embed usage.txt
var usage string

func usageError(msg string) int {
	fmt.Fprintf(os.Stderr, "ptysend: error: %s\nhint: usage: ptysend [flags] -- WORDS...; see ptysend --help\n", msg)
	return failure.ExitFailure
}

// valueApart catches --history 3 and --output 7: the number is taken for
// a command's words (as kong does), as an optional value must follow its '='.
func valueApart(m Mode, cmd *command) error {
	words := cli.Words(cmd.Words)
	if len(words) != 1 || cmd.Words[0] == "--" {
		return nil
	}
	if h, ok := m.(*historyMode); ok && h.History.Set && h.History.Value == "" {
		return fmt.Errorf("--history takes its number after '=': use --history=%s", words[0])
	}
	if o, ok := m.(*outputMode); ok && o.Output.Set && o.Output.Value == "" {
		return fmt.Errorf("--output takes its id after '=': use --output=%s", words[0])
	}
	return nil
}

// choose is the one mode the command line asks for, with its arguments checked.
func choose(opts *Options, modes []Mode) (Mode, error) {
	cmd := find[*command](modes)
	var m Mode
	for _, mode := range modes {
		if !chosen(mode) {
			continue
		}
		if m != nil {
			if err := valueApart(m, cmd); err != nil {
				return nil, err
			}
			return nil, errors.New("use one of --repl-start, --repl-eval, --repl-close, --screen, --notify, --mcp, --skill, --status, --history, --output, --sessions, the --job modes, or -- WORDS, not several")
		}
		if tw, ok := mode.(interface{ takeWords([]string) }); ok {
			tw.takeWords(cli.Words(cmd.Words))
			cmd.Words = nil
		}
		m = mode
	}
	if w, ok := m.(*jobWait); ok { // --since is one flag for two modes
		o := find[*jobOutput](modes)
		w.Since, o.Since = o.Since, nil
	}
	for _, mode := range modes {
		if err := misplaced(mode); mode != m && err != nil {
			return nil, err
		}
	}
	if m == nil {
		return nil, errors.New("no command given")
	}
	switch takes := m.About().Takes; {
	case opts.WaitFree != nil && takes&TakesWaitFree == 0:
		return nil, errors.New("--wait-free goes with -- WORDS, --repl-start or --repl-eval")
	case opts.JSON && takes&TakesJSON == 0:
		return nil, errors.New("--json goes with --screen, --status, --history, --sessions, --jobs, --job-output or --job-screen")
	}
	return m, Check(m)
}

// stopContext ends when ptysend itself is stopped (SIGINT, SIGTERM, SIGHUP), with the signal
// as its cause: the call interrupts its command and exits 128+N (failure.Stopped). The signals
// are caught beside the call's first steps, which do not wait for it (caught closes then): until
// then a stop ends ptysend as if it came before its start, and nothing is typed (call.Request).
func stopContext() (ctx context.Context, caught <-chan struct{}, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	signals, ready := make(chan os.Signal, 1), make(chan struct{})
	go func() {
		signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		close(ready)
		select {
		case s := <-signals:
			cancel(failure.StopSignal{Signal: s.(syscall.Signal)})
		case <-ctx.Done():
		}
	}()
	// stop lets the signals be: ptysend exits next, and each signal.Stop is a handshake with the
	// runtime's signal thread (with one processor, two thread switches), ~0.1 ms after the call's end.
	return ctx, ready, func() { cancel(nil) }
}

// misplaced refuses the options that a mode owns, given without it: their
// misplaced tag says so. The last first: --stderr before --since.
func misplaced(m Mode) error {
	v := reflect.ValueOf(m).Elem()
	for i := v.NumField() - 1; i >= 0; i-- {
		if why := v.Type().Field(i).Tag.Get("misplaced"); why != "" && !v.Field(i).IsZero() {
			return errors.New(why)
		}
	}
	return nil
}

func find[T Mode](modes []Mode) T {
	for _, m := range modes {
		if t, ok := m.(T); ok {
			return t
		}
	}
	panic("no such mode")
}

// The modes of the command line only.

// mcpServer serves the modes as MCP tools on stdin and stdout: ptysend
// --mcp, which execs ptysend-mcp (cmd/ptysend-mcp says why).
type mcpServer struct {
	MCP bool `name:"mcp" help:"Serve the shared terminal to an agent as an MCP server on stdin/stdout (its tools run the modes); --timeout and --max-time set the tools' defaults." json:"-"`
}

func (*mcpServer) About() About { return About{Takes: TakesLimits, Local: true} }

const mcpServerProgram = "ptysend-mcp"

// Run replaces this process with the MCP server (next to ptysend, else on PATH), on the
// same stdin and stdout, with the bridge and limits; it returns only when that fails.
func (m *mcpServer) Run(ctx context.Context, e *Env) (int, error) {
	dir := filepath.Dir(e.Bridge.Exe)
	path := filepath.Join(dir, mcpServerProgram)
	if _, err := os.Stat(path); e.Bridge.Exe == "" || err != nil {
		if path, err = exec.LookPath(mcpServerProgram); err != nil && !errors.Is(err, exec.ErrDot) {
			return 0, &failure.Error{
				Msg:  "ptysend --mcp runs " + mcpServerProgram + ", which is neither next to ptysend (" + dir + ") nor on PATH",
				Hint: "build it with ptysend: scripts/bridge, or go install ./cmd/...",
			}
		}
	}
	argv := []string{path, "--session", e.Bridge.Name, "--timeout", e.Timeout.Duration().String(),
		"--max-time", e.MaxTime.Duration().String(), "--ptysend", e.Bridge.Exe, "--version", cli.Version()}
	err := syscall.Exec(path, argv, os.Environ())
	return 0, &failure.Error{Msg: "starting the MCP server " + path + ": " + err.Error(), Hint: "check that it is an executable built with this ptysend"}
}

type skill struct {
	Skill bool `help:"Print the agent skill (SKILL.md: when and how to use ptysend) and exit." json:"-"`
}

func (*skill) About() About { return About{Local: true} }

func (m *skill) Run(ctx context.Context, e *Env) (int, error) {
	_, err := io.WriteString(e.Stdout, skills.PtyBridge)
	return 0, err
}

// internal is the hidden modes that ptysend starts itself (through tmux, or as a child).
type internal struct {
	// In the popup of ptybridge --confirm: the question, the human's key.
	ConfirmAsk string `name:"confirm-ask" hidden:"" help:"Internal: ask the user the question in FILE (ptybridge --confirm)." json:"-"`
	// A pane's relay, started by tmux's pipe-pane.
	cli.RelayFlags `embed:""`
	// The stderr of a finished command's background jobs, from fd 3.
	LateStderr    string `name:"late-stderr" hidden:"" help:"Internal: show the stderr of this call's background jobs." json:"-"`
	LateStderrTTY string `name:"late-stderr-tty" hidden:"" json:"-"`
	// The process of a job's window, started by --job through tmux.
	JobSupervise string `name:"job-supervise" hidden:"" help:"Internal." json:"-"`
	// The process of a spare window (with no fifo, of its session's anchor).
	JobSpare    string `name:"job-spare" hidden:"" help:"Internal." json:"-"`
	JobSparePID int    `name:"job-spare-pid" hidden:"" json:"-"`
	// A job's relay makes the spare window for the next job.
	JobSpareMake string `name:"job-spare-make" hidden:"" help:"Internal." json:"-"`
}

func (*internal) About() About { return About{Local: true} }

func (m *internal) chosen() bool {
	return m.ConfirmAsk != "" || m.Requested() || m.LateStderr != "" || m.JobSupervise != "" || m.JobSparePID > 0 || m.JobSpareMake != ""
}

func (m *internal) Run(ctx context.Context, e *Env) (int, error) {
	switch {
	case m.ConfirmAsk != "":
		return 0, human.Answer(m.ConfirmAsk, os.Stdin)
	case m.Requested():
		return 0, m.RelayFlags.Run()
	case m.LateStderr != "":
		call.KeepShowingStderr(markers.ID(m.LateStderr), m.LateStderrTTY, os.NewFile(3, "stderr fifo"))
		return 0, nil
	case m.JobSupervise != "":
		return jobs.RunSupervisor(m.JobSupervise), nil
	case m.JobSparePID > 0:
		return jobs.RunSpare(m.JobSpare, m.JobSparePID), nil
	}
	b := bridge.Bridge{Name: m.JobSpareMake, RuntimeDir: e.Bridge.RuntimeDir, Exe: e.Bridge.Exe}
	return 0, jobs.MakeSpare(b)
}
