package relay

import "os"

// The relay's unix sockets, for the project's other small servers (a
// job's keeper, internal/jobs): the same private 0600 socket files and
// the same peer check, without package net (see unixsock.go).

// Listener is a listening unix socket.
type Listener = unixListener

// Listen listens on path, which must not exist, with a 0600 socket file.
func Listen(path string) (*Listener, error) { return listenUnix(path) }

// DialSocket connects to the unix socket at path.
func DialSocket(path string) (*os.File, error) { return dialUnix(path) }
