package modes

import (
	"github.com/ptybridge/ptybridge/internal/look"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// The structured results of the modes whose CLI answer is a list or a few facts (About.Gives):
// each an object, for the MCP tools' output schemas. The others give the CLI's own types
// (look.Status, human.Screen, jobs.OutputAnswer, jobs.WaitResult).

// HistoryResult is history's: the commands, oldest first.
type HistoryResult struct {
	Commands []relay.Entry `json:"commands" jsonschema:"the last commands run at the prompt, oldest first"`
}

// OutputResult is output's: the command, as history lists it, and what it printed.
type OutputResult struct {
	relay.Entry
	Output string `json:"output" jsonschema:"what it printed from offset on (clean text, or the terminal's bytes with raw)"`
	Offset int64  `json:"offset" jsonschema:"where output starts in all the command printed"`
	// TruncatedBytes is the MCP server's: what max_bytes left out of Output.
	TruncatedBytes int64 `json:"truncated_bytes,omitempty" jsonschema:"bytes left out of the middle of output to keep it within max_bytes"`
}

// SessionsResult is sessions': the user's bridges.
type SessionsResult struct {
	Sessions []look.Session `json:"sessions" jsonschema:"the user's bridges: pass a name as session to use one"`
}

// NotifyResult is notify's.
type NotifyResult struct {
	Terminals int `json:"terminals" jsonschema:"how many terminals of the user's show the message"`
	Seconds   int `json:"seconds" jsonschema:"how long it shows"`
}

// JobsResult is jobs': every job, oldest first.
type JobsResult struct {
	Jobs []relay.Info `json:"jobs" jsonschema:"the jobs, oldest first"`
}

// JobStopResult is job_stop's.
type JobStopResult struct {
	Name       string `json:"name"`
	ExitStatus int    `json:"exit_status" jsonschema:"the job's exit status"`
}
