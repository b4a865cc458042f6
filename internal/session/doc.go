// Package session runs one command of the agent's in the shared pane, as
// `ptysend -- WORDS` does: it takes a turn at the pane (internal/bridge),
// makes sure the shell is free (internal/pane), writes the per-call
// wrapper script (internal/markers), types the line that runs it through
// the relay, and streams the output between the markers to stdout until
// the END marker, a timeout (with the two-phase kill) or the bridge
// closing. It ties the other packages together and owns no mechanism of
// its own beyond that.
package session
