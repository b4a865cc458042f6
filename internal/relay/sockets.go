package relay

import (
	"os"

	"github.com/ptybridge/ptybridge/internal/platform"
)

// The relay's unix sockets (platform's, without package net), also for
// the project's other small servers (a job's keeper, internal/jobs): the
// same private 0600 socket files and the same peer check (AcceptFromUs).

// conn is one end of a connected unix socket.
type conn = *os.File

// Listener is a listening unix socket.
type Listener = platform.UnixListener

// Listen listens on path, which must not exist, with a 0600 socket file.
func Listen(path string) (*Listener, error) { return platform.ListenUnix(path) }

// DialSocket connects to the unix socket at path.
func DialSocket(path string) (*os.File, error) { return platform.DialUnix(path) }
