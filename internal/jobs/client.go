package jobs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// open connects to the relay of the job a mode names, or says there is no
// such job.
func open(b bridge.Bridge, name string) (*relay.JobClient, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	c, err := relay.DialJob(SocketPath(b, name))
	if err != nil {
		return nil, unknownJob(b, name)
	}
	return c, nil
}

// unknownJob explains a name no job has, naming those there are.
func unknownJob(b bridge.Bridge, name string) error {
	known := names(b)
	there := "there are no jobs"
	if len(known) > 0 {
		there = "the jobs are: " + strings.Join(known, ", ")
	}
	return &failure.Error{
		Msg:  fmt.Sprintf("no job named %s (%s)", name, there),
		Hint: "ptysend --jobs lists the jobs; a job is gone once its window was closed; start one with ptysend --job NAME -- WORDS",
	}
}

// relayFailed explains a job's relay that failed or hung up mid-request.
func relayFailed(name string, err error) error {
	if errors.Is(err, relay.ErrHungUp) {
		return &failure.Error{
			Msg:  fmt.Sprintf("the job %s is gone: its window was closed", name),
			Hint: "ptysend --jobs lists the jobs that remain",
		}
	}
	return &failure.Error{
		Msg:  fmt.Sprintf("talking to the relay of job %s: %v", name, err),
		Hint: "retry; ptysend --jobs lists the jobs",
	}
}
