package jobs

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// dial connects to the keeper of job name. A socket nobody listens on is
// a keeper's that died: it is removed.
func dial(b bridge.Bridge, name string) (*client, error) {
	path := SocketPath(b, name)
	conn, err := relay.DialSocket(path)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			os.Remove(path)
		}
		return nil, errNoKeeper
	}
	return &client{conn: conn, r: bufio.NewReaderSize(conn, 64*1024)}, nil
}

// open connects to the keeper of the job a mode names, or says there is
// no such job.
func open(b bridge.Bridge, name string) (*client, error) {
	if err := ValidName(name); err != nil {
		return nil, err
	}
	c, err := dial(b, name)
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

// keeperFailed explains a keeper that failed or hung up mid-request.
func keeperFailed(name string, err error) error {
	if errors.Is(err, errKeeperGone) {
		return &failure.Error{
			Msg:  fmt.Sprintf("the job %s is gone: its window was closed", name),
			Hint: "ptysend --jobs lists the jobs that remain",
		}
	}
	return &failure.Error{
		Msg:  fmt.Sprintf("talking to the keeper of job %s: %v", name, err),
		Hint: "retry; ptysend --jobs lists the jobs",
	}
}
