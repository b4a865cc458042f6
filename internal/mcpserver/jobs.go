package mcpserver

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptybridge/ptybridge/internal/jobs"
)

// jobTools are the job modes (internal/jobs) as tools: a long-running
// command in a window of its own, which the user sees and can use, and
// which the agent starts, follows, types into and stops.
func jobTools() []tool {
	return []tool{
		toolFor("job_start", "Start a long-running job the user can see", jobStartDescription, runsCode(false),
			func(c call, in jobStartInput) (int, error) {
				return jobs.Start(jobs.StartRequest{Bridge: c.Bridge, Name: in.Name, Command: in.Command,
					Dir: in.Cwd, Env: in.Env, Stderr: c.Stderr})
			}),
		toolFor("jobs", "List the jobs", `List the jobs started with job_start in the shared terminal, as JSON in stdout: each one's name, whether it runs or its exit status, its runtime, and the last line it printed.`, readOnly(),
			func(c call, _ jobsInput) (int, error) { return jobs.List(c.Bridge, true, c.Stdout, c.Stderr) }),
		toolFor("job_output", "What a job printed", jobOutputDescription, readOnly(),
			func(c call, in jobOutputInput) (int, error) {
				since := int64(-1)
				if in.Since != nil {
					since = *in.Since
				}
				return jobs.Output(jobs.OutputRequest{Bridge: c.Bridge, Name: in.Name, Since: since, Stderr: in.Stderr,
					Raw: in.Raw, JSON: true, Out: c.Stdout, Notes: c.Stderr})
			}),
		toolFor("job_wait", "Wait for a line of a job, or its end", jobWaitDescription, readOnly(),
			func(c call, in jobWaitInput) (int, error) {
				since := int64(-1)
				if in.Since != nil {
					since = *in.Since
				}
				return jobs.Wait(jobs.WaitRequest{Bridge: c.Bridge, Name: in.Name, Until: in.Until, Since: since,
					Timeout: c.Timeout, MaxTime: c.MaxTime, Out: c.Stdout, Notes: c.Stderr})
			}),
		toolFor("job_stop", "Stop a job", `Stop a job with the two-phase kill (Ctrl-C, Ctrl-\, then its process group) and close its window; exit_code is the job's status.`,
			&mcp.ToolAnnotations{DestructiveHint: yes, IdempotentHint: true, OpenWorldHint: no},
			func(c call, in jobNameInput) (int, error) { return jobs.Stop(c.Bridge, in.Name, c.Stderr) }),
		toolFor("job_send", "Type text into a job", `Type text literally into a job's window (a REPL, a TUI, another CLI waiting for input): several lines arrive as one paste, then Enter unless no_enter. Never types into the user's shared shell.`, runsCode(false),
			func(c call, in jobSendInput) (int, error) { return jobs.Send(c.Bridge, in.Name, in.Text, !in.NoEnter) }),
		toolFor("job_keys", "Press keys in a job", `Press keys in a job's window (never in the user's shared shell), given as tmux key names: C-c to interrupt, Up, Enter, Escape, q to leave a pager, G to go to its end...`, runsCode(false),
			func(c call, in jobKeysInput) (int, error) { return jobs.Keys(c.Bridge, in.Name, in.Keys) }),
		toolFor("job_screen", "See a job's window", `Return what a job's window shows right now, as JSON in stdout: its rows (a full-screen program's included) and the cursor.`, readOnly(),
			func(c call, in jobNameInput) (int, error) {
				s, err := jobs.ReadScreen(c.Bridge, in.Name)
				if err != nil {
					return 0, err
				}
				return 0, json.NewEncoder(c.Stdout).Encode(s)
			}),
	}
}

const jobStartDescription = `Start a long-running command (a dev server, a watcher, a long build) as a job: in a new window of the shared terminal, named name, which the user sees in tmux's status line and can switch to, type into and stop; in a shell of the same kind, user and directory as the shared shell. Returns as soon as it runs. Then use job_wait (until a line such as "Listening on"), job_output, job_send, job_stop.`

const jobOutputDescription = `Return what a job printed so far, as JSON in stdout with the clean text (raw for bytes) and the offset to pass as since next time, so a log can be followed without rereading it; stderr for the job's stderr. Kept whole up to 8 MiB, then the first and last parts.`

const jobWaitDescription = `Block until a line of the job's output matches until (a regular expression, e.g. "Listening on"), or the job ends: exit_code 0 when it matched, the job's own status when it ended; timeout and max_time apply (124).`

type jobNameInput struct {
	Name string `json:"name" jsonschema:"the job's name"`
}

type jobsInput struct{}

type jobStartInput struct {
	Name    string   `json:"name" jsonschema:"the job's name: letters, digits, - and _, at most 40"`
	Command string   `json:"command" jsonschema:"shell code to run as the job"`
	Cwd     string   `json:"cwd,omitempty" jsonschema:"its directory, relative to the shared shell's"`
	Env     []string `json:"env,omitempty" jsonschema:"settings over the shared shell's environment, each as KEY=VALUE"`
}

type jobOutputInput struct {
	Name   string `json:"name" jsonschema:"the job's name"`
	Since  *int64 `json:"since,omitempty" jsonschema:"only what came after this offset (from the last answer)"`
	Stderr bool   `json:"stderr,omitempty" jsonschema:"the job's stderr instead of its output"`
	Raw    bool   `json:"raw,omitempty" jsonschema:"the terminal's bytes instead of clean text"`
}

type jobWaitInput struct {
	Name  string `json:"name" jsonschema:"the job's name"`
	Until string `json:"until,omitempty" jsonschema:"a regular expression to wait for in the job's output; without it, wait for the job's end"`
	Since *int64 `json:"since,omitempty" jsonschema:"only output after this offset counts"`
	limitsInput
}

type jobSendInput struct {
	Name    string `json:"name" jsonschema:"the job's name"`
	Text    string `json:"text" jsonschema:"the text to type, literally"`
	NoEnter bool   `json:"no_enter,omitempty" jsonschema:"leave it typed, without Enter"`
}

type jobKeysInput struct {
	Name string   `json:"name" jsonschema:"the job's name"`
	Keys []string `json:"keys" jsonschema:"tmux key names, e.g. [\"C-c\"] or [\"G\", \"q\"]"`
}
