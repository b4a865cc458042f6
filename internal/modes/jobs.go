package modes

import (
	"context"
	"errors"
	"strings"

	"github.com/ptybridge/ptybridge/internal/jobs"
)

// The modes of long-running jobs, each in a window of its own (internal/jobs).

type jobStart struct {
	Name    string   `name:"job" placeholder:"NAME" help:"Start WORDS (after --) as job NAME, in a window of its own." json:"name" jsonschema:"the job's name: letters, digits, - and _, at most 40"`
	Cwd     string   `placeholder:"DIR" help:"With --job: its directory (default: the shared shell's)." json:"cwd,omitempty" jsonschema:"its directory, relative to the shared shell's" misplaced:"--cwd and --env go with --job NAME"`
	Env     []string `placeholder:"KEY=VALUE" sep:"none" help:"With --job: set a variable (repeatable)." json:"env,omitempty" jsonschema:"settings over the shared shell's environment, each as KEY=VALUE" misplaced:"--cwd and --env go with --job NAME"`
	Command string   `kong:"-" json:"command" jsonschema:"shell code to run as the job"`
	Show    bool     `help:"With --job: open it in a pane beside the user's shell, in the window they look at, instead of a window of its own." json:"show,omitempty" jsonschema:"open it beside the user's shell, where they see it, instead of in a window of its own" misplaced:"--show goes with --job NAME"`
}

func (*jobStart) About() About               { return About{Tool: "job_start"} }
func (m *jobStart) takeWords(words []string) { m.Command = strings.Join(words, " ") }

func (m *jobStart) Check() error {
	if m.Command == "" {
		return errors.New("--job NAME needs the job's command after --, e.g. --job web -- python3 -m http.server 8000")
	}
	return nil
}

func (m *jobStart) Run(ctx context.Context, e *Env) (int, error) {
	return jobs.Start(e.Bridge, jobs.Request{Name: m.Name, Command: m.Command, Dir: m.Cwd, Env: m.Env, Show: m.Show}, e.Notes)
}

type jobList struct {
	List bool `name:"jobs" help:"List the jobs." json:"-"`
}

func (*jobList) About() About { return About{Takes: TakesJSON, Tool: "jobs", Gives: JobsResult{}} }

func (m *jobList) Run(ctx context.Context, e *Env) (int, error) {
	infos := jobs.Infos(e.Bridge)
	e.give(JobsResult{Jobs: infos})
	return jobs.List(infos, e.JSON, e.Stdout, e.Notes)
}

type jobOutput struct {
	Name   string `name:"job-output" placeholder:"NAME" help:"Print what job NAME printed so far." json:"name" jsonschema:"the job's name"`
	Since  *int64 `placeholder:"OFFSET" help:"With --job-output, --job-wait: only what came after OFFSET." json:"since,omitempty" jsonschema:"only what came after this offset (from the last answer)" misplaced:"--since goes with --job-output or --job-wait"`
	Stderr bool   `name:"stderr" help:"With --job-output: the job's stderr." json:"stderr,omitempty" jsonschema:"the job's stderr instead of its output" misplaced:"--stderr goes with --job-output"`
}

func (*jobOutput) About() About {
	return About{Takes: TakesRaw | TakesJSON, Tool: "job_output", Gives: jobs.OutputAnswer{}}
}

func (m *jobOutput) Run(ctx context.Context, e *Env) (int, error) {
	return jobs.Output(jobs.OutputRequest{Bridge: e.Bridge, Name: m.Name, Since: since(m.Since), Stderr: m.Stderr,
		Raw: e.Raw, JSON: e.JSON, Out: e.Stdout, Notes: e.Notes, Give: func(a jobs.OutputAnswer) { e.give(a) }})
}

func since(s *int64) int64 {
	if s == nil {
		return -1
	}
	return *s
}

type jobWait struct {
	Name  string `name:"job-wait" placeholder:"NAME" help:"Wait for job NAME to print a line matching --until, or to end." json:"name" jsonschema:"the job's name"`
	Until string `placeholder:"REGEX" help:"With --job-wait: the line to wait for (a regular expression)." json:"until,omitempty" jsonschema:"a regular expression to wait for in the job's output; without it, wait for the job's end" misplaced:"--until goes with --job-wait NAME"`
	// Since is --since, which the command line gives to --job-output's
	// field (one flag, two modes); the tool its own.
	Since *int64 `kong:"-" json:"since,omitempty" jsonschema:"only output after this offset counts"`
}

func (*jobWait) About() About {
	return About{Takes: TakesLimits, Tool: "job_wait", Gives: jobs.WaitResult{}}
}

func (m *jobWait) Run(ctx context.Context, e *Env) (int, error) {
	var r jobs.WaitResult
	status, err := jobs.Wait(ctx, jobs.WaitRequest{Bridge: e.Bridge, Name: m.Name, Until: m.Until, Since: since(m.Since),
		Timeout: e.Timeout.Duration(), MaxTime: e.MaxTime.Duration(), Out: e.Stdout, Notes: e.Notes, Result: &r})
	if err == nil {
		e.give(r)
	}
	return status, err
}

type jobStop struct {
	Name string `name:"job-stop" placeholder:"NAME" help:"Stop job NAME and close its window; exit with its status." json:"name" jsonschema:"the job's name"`
}

func (*jobStop) About() About { return About{Tool: "job_stop", Gives: JobStopResult{}} }

func (m *jobStop) Run(ctx context.Context, e *Env) (int, error) {
	status, err := jobs.Stop(e.Bridge, m.Name, e.Notes)
	if err == nil {
		e.give(JobStopResult{Name: m.Name, ExitStatus: status})
	}
	return status, err
}

type jobSend struct {
	Name    string `name:"job-send" placeholder:"NAME" help:"Type TEXT (after --) into job NAME's window, then Enter." json:"name" jsonschema:"the job's name"`
	NoEnter bool   `help:"With --job-send: no Enter." json:"no_enter,omitempty" jsonschema:"leave it typed, without Enter" misplaced:"--no-enter goes with --job-send NAME"`
	Text    string `kong:"-" json:"text" jsonschema:"the text to type, literally"`
}

func (*jobSend) About() About               { return About{Tool: "job_send"} }
func (m *jobSend) takeWords(words []string) { m.Text = strings.Join(words, " ") }

func (m *jobSend) Run(ctx context.Context, e *Env) (int, error) {
	return jobs.Send(e.Bridge, m.Name, m.Text, !m.NoEnter)
}

type jobKeys struct {
	Name string   `name:"job-keys" placeholder:"NAME" help:"Send tmux key names (after --) to job NAME's window." json:"name" jsonschema:"the job's name"`
	Keys []string `kong:"-" json:"keys" jsonschema:"tmux key names, e.g. [\"C-c\"] or [\"G\", \"q\"]"`
}

func (*jobKeys) About() About               { return About{Tool: "job_keys"} }
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

type jobScreen struct {
	Name string `name:"job-screen" placeholder:"NAME" help:"Print what job NAME's window shows, and the cursor." json:"name" jsonschema:"the job's name"`
}

func (*jobScreen) About() About { return About{Takes: TakesJSON, Tool: "job_screen"} }

func (m *jobScreen) Run(ctx context.Context, e *Env) (int, error) {
	s, err := jobs.ReadScreen(e.Bridge, m.Name)
	return printScreen(e, s, err)
}
