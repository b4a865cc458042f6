package modes

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/call"
	"github.com/ptybridge/ptybridge/internal/cli"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/human"
	"github.com/ptybridge/ptybridge/internal/jobs"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/skills"
)

// The modes of the command line only.

// mcpServer serves the modes as MCP tools on stdin and stdout: ptysend
// --mcp, which execs ptysend-mcp (cmd/ptysend-mcp says why).
type mcpServer struct {
	MCP bool `name:"mcp" help:"Serve the shared terminal to an agent as an MCP server on stdin/stdout (its tools run the modes); --timeout and --max-time set the tools' defaults." json:"-"`
}

func (m *mcpServer) About() About { return About{Chosen: m.MCP, Takes: TakesLimits} }

const mcpServerProgram = "ptysend-mcp"

// Run replaces this process with the MCP server, on the same stdin and
// stdout, with the bridge and limits; it returns only when that fails.
func (m *mcpServer) Run(ctx context.Context, e *Env) (int, error) {
	path, err := findMCPServer()
	if err != nil {
		return 0, err
	}
	argv := []string{path, "--session", e.Bridge.Name, "--timeout", e.Timeout.Duration().String(),
		"--max-time", e.MaxTime.Duration().String(), "--ptysend", e.Bridge.Exe, "--version", cli.Version()}
	err = syscall.Exec(path, argv, os.Environ())
	return 0, &failure.Error{Msg: "starting the MCP server " + path + ": " + err.Error(), Hint: "check that it is an executable built with this ptysend"}
}

// findMCPServer looks next to ptysend, then on PATH.
func findMCPServer() (string, error) {
	exe, err := os.Executable()
	if err == nil {
		path := filepath.Join(filepath.Dir(exe), mcpServerProgram)
		if _, err := os.Stat(path); err == nil {
			return path, nil
		}
	}
	path, err := exec.LookPath(mcpServerProgram)
	if errors.Is(err, exec.ErrDot) {
		err = nil
	}
	if err != nil {
		return "", &failure.Error{
			Msg:  "ptysend --mcp runs " + mcpServerProgram + ", which is neither next to ptysend (" + filepath.Dir(exe) + ") nor on PATH",
			Hint: "build it with ptysend: scripts/bridge, or go install ./cmd/...",
		}
	}
	return path, nil
}

// skill prints the agent skill: ptysend --skill.
type skill struct {
	Skill bool `help:"Print the agent skill (SKILL.md: when and how to use ptysend) and exit." json:"-"`
}

func (m *skill) About() About { return About{Chosen: m.Skill} }

func (m *skill) Run(ctx context.Context, e *Env) (int, error) {
	_, err := io.WriteString(e.Stdout, skills.PtyBridge)
	return 0, err
}

// internal is the hidden modes that ptysend starts itself (through tmux,
// or as a child) for its own parts.
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

func (m *internal) About() About {
	return About{Chosen: m.ConfirmAsk != "" || m.Requested() || m.LateStderr != "" || m.JobSupervise != "" || m.JobSparePID > 0 || m.JobSpareMake != ""}
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
