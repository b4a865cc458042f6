package main

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/jobs"
)

// The modes of long-running jobs, each in a window of its own beside the
// shared terminal (internal/jobs).

// jobModes are the flags of the job modes, embedded in flags.
type jobModes struct {
	JobStart  jobStart  `embed:""`
	JobList   jobList   `embed:""`
	JobOutput jobOutput `embed:""`
	JobWait   jobWait   `embed:""`
	JobStop   jobStop   `embed:""`
	JobSend   jobSend   `embed:""`
	JobKeys   jobKeys   `embed:""`
	JobScreen jobScreen `embed:""`

	JobSupervise jobSupervise `embed:""`
	JobSpare     jobSpare     `embed:""`
	JobKeeper    jobKeeper    `embed:""`
}

func (j *jobModes) modes() []mode {
	return []mode{&j.JobStart, &j.JobList, &j.JobOutput, &j.JobWait, &j.JobStop, &j.JobSend, &j.JobKeys, &j.JobScreen,
		&j.JobSupervise, &j.JobSpare, &j.JobKeeper}
}

// takesWords is a mode that takes the words after "--" (which are
// otherwise a command's).
type takesWords interface{ takeWords(words []string) }

// words are the words after "--", without it.
func words(w []string) []string {
	if len(w) > 0 && w[0] == "--" {
		return w[1:]
	}
	return w
}

// misplaced refuses the job options given without the mode they belong to.
func (j *jobModes) misplaced() error {
	switch {
	case j.JobStart.Name == "" && (j.JobStart.Cwd != "" || len(j.JobStart.Env) > 0):
		return errors.New("--cwd and --env go with --job NAME")
	case j.JobOutput.Name == "" && j.JobWait.Name == "" && j.JobOutput.Since != nil:
		return errors.New("--since goes with --job-output or --job-wait")
	case j.JobOutput.Name == "" && j.JobOutput.Stderr:
		return errors.New("--stderr goes with --job-output")
	case j.JobWait.Name == "" && j.JobWait.Until != "":
		return errors.New("--until goes with --job-wait NAME")
	case j.JobSend.Name == "" && j.JobSend.NoEnter:
		return errors.New("--no-enter goes with --job-send NAME")
	}
	return nil
}

// jobStart starts a job: ptysend --job NAME [--cwd DIR] [--env K=V]... -- WORDS.
type jobStart struct {
	Name  string   `name:"job" placeholder:"NAME" help:"Start WORDS (after --) as job NAME, in a window of its own."`
	Cwd   string   `placeholder:"DIR" help:"With --job: its directory (default: the shared shell's)."`
	Env   []string `placeholder:"KEY=VALUE" sep:"none" help:"With --job: set a variable (repeatable)."`
	words []string
}

func (m *jobStart) chosen() bool             { return m.Name != "" }
func (m *jobStart) takeWords(words []string) { m.words = words }
func (m *jobStart) typed() string            { return "--job " + m.Name }

func (m *jobStart) check() error {
	if len(m.words) == 0 {
		return errors.New("--job NAME needs the job's command after --, e.g. --job web -- python3 -m http.server 8000")
	}
	return nil
}

func (m *jobStart) Run(c call) (int, error) {
	return jobs.Start(jobs.StartRequest{Bridge: c.Bridge, Name: m.Name, Command: strings.Join(m.words, " "),
		Dir: m.Cwd, Env: m.Env, Stderr: c.Stderr})
}

// jobList lists the jobs: ptysend --jobs [--json].
type jobList struct {
	List bool `name:"jobs" help:"List the jobs."`
}

func (m *jobList) chosen() bool  { return m.List }
func (m *jobList) check() error  { return nil }
func (m *jobList) typed() string { return "--jobs" }
func (m *jobList) printsJSON()   {}

func (m *jobList) Run(c call) (int, error) { return jobs.List(c.Bridge, c.JSON, c.Stdout, c.Stderr) }

// jobOutput prints a job's output: ptysend --job-output NAME [--since OFFSET] [--stderr].
type jobOutput struct {
	Name   string `name:"job-output" placeholder:"NAME" help:"Print what job NAME printed so far."`
	Since  *int64 `placeholder:"OFFSET" help:"With --job-output, --job-wait: only what came after OFFSET."`
	Stderr bool   `name:"stderr" help:"With --job-output: the job's stderr."`
}

func (m *jobOutput) chosen() bool  { return m.Name != "" }
func (m *jobOutput) check() error  { return nil }
func (m *jobOutput) typed() string { return "--job-output " + m.Name }
func (m *jobOutput) printsJSON()   {}

func (m *jobOutput) Run(c call) (int, error) {
	return jobs.Output(jobs.OutputRequest{Bridge: c.Bridge, Name: m.Name, Since: since(m.Since), Stderr: m.Stderr,
		Raw: c.Raw, JSON: c.JSON, Out: c.Stdout, Notes: c.Stderr})
}

func since(s *int64) int64 {
	if s == nil {
		return -1
	}
	return *s
}

// jobWait waits for a line or the end: ptysend --job-wait NAME [--until REGEX].
type jobWait struct {
	Name  string `name:"job-wait" placeholder:"NAME" help:"Wait for job NAME to print a line matching --until, or to end."`
	Until string `placeholder:"REGEX" help:"With --job-wait: the line to wait for (a regular expression)."`
	since *int64
}

func (m *jobWait) chosen() bool  { return m.Name != "" }
func (m *jobWait) check() error  { return nil }
func (m *jobWait) typed() string { return "--job-wait " + m.Name }

func (m *jobWait) Run(c call) (int, error) {
	return jobs.Wait(jobs.WaitRequest{Bridge: c.Bridge, Name: m.Name, Until: m.Until, Since: since(m.since),
		Timeout: c.Timeout, MaxTime: c.MaxTime, Out: c.Stdout, Notes: c.Stderr})
}

// jobStop stops a job: ptysend --job-stop NAME.
type jobStop struct {
	Name string `name:"job-stop" placeholder:"NAME" help:"Stop job NAME and close its window; exit with its status."`
}

func (m *jobStop) chosen() bool  { return m.Name != "" }
func (m *jobStop) check() error  { return nil }
func (m *jobStop) typed() string { return "--job-stop " + m.Name }

func (m *jobStop) Run(c call) (int, error) { return jobs.Stop(c.Bridge, m.Name, c.Stderr) }

// jobSend types text into a job's window: ptysend --job-send NAME [--no-enter] -- TEXT.
type jobSend struct {
	Name    string `name:"job-send" placeholder:"NAME" help:"Type TEXT (after --) into job NAME's window, then Enter."`
	NoEnter bool   `help:"With --job-send: no Enter."`
	words   []string
}

func (m *jobSend) chosen() bool             { return m.Name != "" }
func (m *jobSend) takeWords(words []string) { m.words = words }
func (m *jobSend) typed() string            { return "--job-send " + m.Name }
func (m *jobSend) check() error             { return nil }

func (m *jobSend) Run(c call) (int, error) {
	return jobs.Send(c.Bridge, m.Name, strings.Join(m.words, " "), !m.NoEnter)
}

// jobKeys sends key names to a job's window: ptysend --job-keys NAME -- KEY....
type jobKeys struct {
	Name  string `name:"job-keys" placeholder:"NAME" help:"Send tmux key names (after --) to job NAME's window."`
	words []string
}

func (m *jobKeys) chosen() bool             { return m.Name != "" }
func (m *jobKeys) takeWords(words []string) { m.words = words }
func (m *jobKeys) typed() string            { return "--job-keys " + m.Name }

func (m *jobKeys) check() error {
	if len(m.words) == 0 {
		return errors.New("--job-keys NAME needs key names after --, e.g. --job-keys pager -- G")
	}
	return nil
}

func (m *jobKeys) Run(c call) (int, error) { return jobs.Keys(c.Bridge, m.Name, m.words) }

// jobScreen prints a job's window: ptysend --job-screen NAME [--json].
type jobScreen struct {
	Name string `name:"job-screen" placeholder:"NAME" help:"Print what job NAME's window shows, and the cursor."`
}

func (m *jobScreen) chosen() bool  { return m.Name != "" }
func (m *jobScreen) check() error  { return nil }
func (m *jobScreen) typed() string { return "--job-screen " + m.Name }
func (m *jobScreen) printsJSON()   {}

func (m *jobScreen) Run(c call) (int, error) {
	s, err := jobs.ReadScreen(c.Bridge, m.Name)
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

// jobSupervise is the process of a job's window, started by --job
// through tmux. Hidden: no one else has a use for it.
type jobSupervise struct {
	Spec string `name:"job-supervise" hidden:"" help:"Internal."`
}

func (m *jobSupervise) chosen() bool  { return m.Spec != "" }
func (m *jobSupervise) check() error  { return nil }
func (m *jobSupervise) typed() string { return "" }

func (m *jobSupervise) Run(c call) (int, error) { return jobs.RunSupervisor(m.Spec), nil }

// jobSpare is the process of a spare window, waiting for a job (or, with
// no fifo, of the spare session's anchor window). Hidden.
type jobSpare struct {
	Fifo string `name:"job-spare" hidden:"" help:"Internal."`
	PID  int    `name:"job-spare-pid" hidden:""`
}

func (m *jobSpare) chosen() bool  { return m.PID > 0 }
func (m *jobSpare) check() error  { return nil }
func (m *jobSpare) typed() string { return "" }

func (m *jobSpare) Run(c call) (int, error) { return jobs.RunSpare(m.Fifo, m.PID), nil }

// jobKeeper is the process pipe-pane connects to a job's window. Hidden.
type jobKeeper struct {
	Args string `name:"job-keeper" hidden:"" help:"Internal."`
	Pane string `name:"job-keeper-pane" hidden:""`
	PID  int    `name:"job-keeper-pid" hidden:""`
}

func (m *jobKeeper) chosen() bool  { return m.Args != "" }
func (m *jobKeeper) check() error  { return nil }
func (m *jobKeeper) typed() string { return "" }

func (m *jobKeeper) Run(c call) (int, error) {
	var a jobs.KeeperArgs
	js, err := hex.DecodeString(m.Args)
	if err == nil {
		err = json.Unmarshal(js, &a)
	}
	if err != nil {
		return 0, failure.From(err)
	}
	a.Pane, a.PanePID = m.Pane, m.PID
	if err := jobs.RunKeeper(a); err != nil {
		return 0, failure.From(err)
	}
	return 0, nil
}
