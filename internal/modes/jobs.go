package modes

import (
	"context"
	"errors"

	"github.com/ptybridge/ptybridge/internal/jobs"
)

// The modes of long-running jobs, each in a window of its own beside the
// shared terminal (internal/jobs).

// jobStart starts a job: ptysend --job NAME [--cwd DIR] [--env K=V]... -- WORDS.
type jobStart struct {
	Name    string   `name:"job" placeholder:"NAME" help:"Start WORDS (after --) as job NAME, in a window of its own." json:"name" jsonschema:"the job's name: letters, digits, - and _, at most 40"`
	Cwd     string   `placeholder:"DIR" help:"With --job: its directory (default: the shared shell's)." json:"cwd,omitempty" jsonschema:"its directory, relative to the shared shell's"`
	Env     []string `placeholder:"KEY=VALUE" sep:"none" help:"With --job: set a variable (repeatable)." json:"env,omitempty" jsonschema:"settings over the shared shell's environment, each as KEY=VALUE"`
	Command string   `kong:"-" json:"command" jsonschema:"shell code to run as the job"`
}

func (m *jobStart) About() About {
	return About{Chosen: m.Name != "", Tool: &Tool{Name: "job_start", Title: "Start a long-running job the user can see", Destructive: true, OpenWorld: true,
		Description: `Start a long-running command (a dev server, a watcher, a long build) as a job: in a new window of the shared terminal, named name, which the user sees in tmux's status line and can switch to, type into and stop; in a shell of the same kind, user and directory as the shared shell. Returns as soon as it runs. Then use job_wait (until a line such as "Listening on"), job_output, job_send, job_stop.`}}
}

func (m *jobStart) takeWords(words []string) { m.Command = joined(words) }

func (m *jobStart) Check() error {
	if m.Command == "" {
		return errors.New("--job NAME needs the job's command after --, e.g. --job web -- python3 -m http.server 8000")
	}
	return nil
}

func (m *jobStart) misplaced() error {
	if m.Cwd != "" || len(m.Env) > 0 {
		return errors.New("--cwd and --env go with --job NAME")
	}
	return nil
}

func (m *jobStart) Run(ctx context.Context, e *Env) (int, error) {
	return jobs.Start(jobs.StartRequest{Bridge: e.Bridge, Name: m.Name, Command: m.Command, Dir: m.Cwd, Env: m.Env, Stderr: e.Stderr})
}

// jobList lists the jobs: ptysend --jobs [--json].
type jobList struct {
	List bool `name:"jobs" help:"List the jobs." json:"-"`
}

func (m *jobList) About() About {
	return About{Chosen: m.List, Takes: TakesJSON, Tool: &Tool{Name: "jobs", Title: "List the jobs", ReadOnly: true, Idempotent: true, JSON: true,
		Description: `List the jobs started with job_start in the shared terminal, as JSON in stdout: each one's name, whether it runs or its exit status, its runtime, and the last line it printed.`}}
}

func (m *jobList) Run(ctx context.Context, e *Env) (int, error) {
	return jobs.List(e.Bridge, e.JSON, e.Stdout, e.Stderr)
}

// jobOutput prints a job's output: ptysend --job-output NAME [--since OFFSET] [--stderr].
type jobOutput struct {
	Name   string `name:"job-output" placeholder:"NAME" help:"Print what job NAME printed so far." json:"name" jsonschema:"the job's name"`
	Since  *int64 `placeholder:"OFFSET" help:"With --job-output, --job-wait: only what came after OFFSET." json:"since,omitempty" jsonschema:"only what came after this offset (from the last answer)"`
	Stderr bool   `name:"stderr" help:"With --job-output: the job's stderr." json:"stderr,omitempty" jsonschema:"the job's stderr instead of its output"`
}

func (m *jobOutput) About() About {
	return About{Chosen: m.Name != "", Takes: TakesRaw | TakesJSON, Tool: &Tool{Name: "job_output", Title: "What a job printed", ReadOnly: true, Idempotent: true, JSON: true,
		Description: `Return what a job printed so far, as JSON in stdout with the clean text (raw for bytes) and the offset to pass as since next time, so a log can be followed without rereading it; stderr for the job's stderr. Kept whole up to 8 MiB, then the first and last parts.`}}
}

func (m *jobOutput) misplaced() error {
	switch {
	case m.Stderr:
		return errors.New("--stderr goes with --job-output")
	case m.Since != nil:
		return errors.New("--since goes with --job-output or --job-wait")
	}
	return nil
}

func (m *jobOutput) Run(ctx context.Context, e *Env) (int, error) {
	return jobs.Output(jobs.OutputRequest{Bridge: e.Bridge, Name: m.Name, Since: since(m.Since), Stderr: m.Stderr,
		Raw: e.Raw, JSON: e.JSON, Out: e.Stdout, Notes: e.Stderr})
}

func since(s *int64) int64 {
	if s == nil {
		return -1
	}
	return *s
}

// jobWait waits for a line or the end: ptysend --job-wait NAME [--until REGEX].
type jobWait struct {
	Name  string `name:"job-wait" placeholder:"NAME" help:"Wait for job NAME to print a line matching --until, or to end." json:"name" jsonschema:"the job's name"`
	Until string `placeholder:"REGEX" help:"With --job-wait: the line to wait for (a regular expression)." json:"until,omitempty" jsonschema:"a regular expression to wait for in the job's output; without it, wait for the job's end"`
	// Since is --since, which the command line gives to --job-output's
	// field (one flag, two modes); the tool its own.
	Since *int64 `kong:"-" json:"since,omitempty" jsonschema:"only output after this offset counts"`
}

func (m *jobWait) About() About {
	return About{Chosen: m.Name != "", Takes: TakesLimits, Tool: &Tool{Name: "job_wait", Title: "Wait for a line of a job, or its end", ReadOnly: true, Idempotent: true,
		Description: `Block until a line of the job's output matches until (a regular expression, e.g. "Listening on"), or the job ends: exit_code 0 when it matched, the job's own status when it ended; timeout and max_time apply (124).`}}
}

func (m *jobWait) misplaced() error {
	if m.Until != "" {
		return errors.New("--until goes with --job-wait NAME")
	}
	return nil
}

func (m *jobWait) Run(ctx context.Context, e *Env) (int, error) {
	timeout, maxTime := e.limits()
	return jobs.Wait(ctx, jobs.WaitRequest{Bridge: e.Bridge, Name: m.Name, Until: m.Until, Since: since(m.Since),
		Timeout: timeout, MaxTime: maxTime, Out: e.Stdout, Notes: e.Stderr})
}

// jobStop stops a job: ptysend --job-stop NAME.
type jobStop struct {
	Name string `name:"job-stop" placeholder:"NAME" help:"Stop job NAME and close its window; exit with its status." json:"name" jsonschema:"the job's name"`
}

func (m *jobStop) About() About {
	return About{Chosen: m.Name != "", Tool: &Tool{Name: "job_stop", Title: "Stop a job", Destructive: true, Idempotent: true,
		Description: `Stop a job with the two-phase kill (Ctrl-C, Ctrl-\, then its process group) and close its window; exit_code is the job's status.`}}
}

func (m *jobStop) Run(ctx context.Context, e *Env) (int, error) {
	return jobs.Stop(e.Bridge, m.Name, e.Stderr)
}

// jobSend types text into a job's window: ptysend --job-send NAME [--no-enter] -- TEXT.
type jobSend struct {
	Name    string `name:"job-send" placeholder:"NAME" help:"Type TEXT (after --) into job NAME's window, then Enter." json:"name" jsonschema:"the job's name"`
	NoEnter bool   `help:"With --job-send: no Enter." json:"no_enter,omitempty" jsonschema:"leave it typed, without Enter"`
	Text    string `kong:"-" json:"text" jsonschema:"the text to type, literally"`
}

func (m *jobSend) About() About {
	return About{Chosen: m.Name != "", Tool: &Tool{Name: "job_send", Title: "Type text into a job", Destructive: true, OpenWorld: true,
		Description: `Type text literally into a job's window (a REPL, a TUI, another CLI waiting for input): several lines arrive as one paste, then Enter unless no_enter. Never types into the user's shared shell.`}}
}

func (m *jobSend) takeWords(words []string) { m.Text = joined(words) }

func (m *jobSend) misplaced() error {
	if m.NoEnter {
		return errors.New("--no-enter goes with --job-send NAME")
	}
	return nil
}

func (m *jobSend) Run(ctx context.Context, e *Env) (int, error) {
	return jobs.Send(e.Bridge, m.Name, m.Text, !m.NoEnter)
}

// jobKeys sends key names to a job's window: ptysend --job-keys NAME -- KEY....
type jobKeys struct {
	Name string   `name:"job-keys" placeholder:"NAME" help:"Send tmux key names (after --) to job NAME's window." json:"name" jsonschema:"the job's name"`
	Keys []string `kong:"-" json:"keys" jsonschema:"tmux key names, e.g. [\"C-c\"] or [\"G\", \"q\"]"`
}

func (m *jobKeys) About() About {
	return About{Chosen: m.Name != "", Tool: &Tool{Name: "job_keys", Title: "Press keys in a job", Destructive: true, OpenWorld: true,
		Description: `Press keys in a job's window (never in the user's shared shell), given as tmux key names: C-c to interrupt, Up, Enter, Escape, q to leave a pager, G to go to its end...`}}
}

func (m *jobKeys) takeWords(words []string) { m.Keys = words }

func (m *jobKeys) Check() error {
	if len(m.Keys) == 0 {
		return errors.New("--job-keys NAME needs key names after --, e.g. --job-keys pager -- G")
	}
	return nil
}

func (m *jobKeys) Run(ctx context.Context, e *Env) (int, error) {
	return jobs.Keys(e.Bridge, m.Name, m.Keys)
}

// jobScreen prints a job's window: ptysend --job-screen NAME [--json].
type jobScreen struct {
	Name string `name:"job-screen" placeholder:"NAME" help:"Print what job NAME's window shows, and the cursor." json:"name" jsonschema:"the job's name"`
}

func (m *jobScreen) About() About {
	return About{Chosen: m.Name != "", Takes: TakesJSON, Tool: &Tool{Name: "job_screen", Title: "See a job's window", ReadOnly: true, Idempotent: true, JSON: true,
		Description: `Return what a job's window shows right now, as JSON in stdout: its rows (a full-screen program's included) and the cursor.`}}
}

func (m *jobScreen) Run(ctx context.Context, e *Env) (int, error) {
	s, err := jobs.ReadScreen(e.Bridge, m.Name)
	if err != nil {
		return 0, err
	}
	return 0, printScreen(e, s, s.CursorLine())
}
