// Package jobs runs long-running jobs of the agent's (dev servers,
// watchers, long builds) where the human sees them: each in a window of
// its own in the bridge session, beside the shared terminal.
//
// A job has three parts, all of them this package's:
//
//   - its window, made by ptysend --job with one tmux call (new-window -d,
//     so the human's current window stays; remain-on-exit, so a job that
//     ended stays on screen, marked finished, until the human closes it);
//   - its supervisor (supervisor.go), the window's process: ptysend in a
//     hidden mode that starts the job's shell (of the shared shell's kind,
//     in its directory and environment) as the terminal's foreground
//     process group, frames the job's stderr onto the terminal as ptysend
//     does for commands, and prints the invisible START and END markers,
//     the END marker with the job's exit status;
//   - its keeper (keeper.go), which pipe-pane connects to the window both
//     ways, like the shared pane's relay: it keeps what the job printed in
//     memory (never on disk; bounded, buffer.go), its stderr apart, its
//     status, types into the window, and serves the other modes on a
//     0600 unix socket in the private runtime directory (protocol.go),
//     pushing new output to a client that waits for a line.
//
// The modes (--job, --jobs, --job-output, --job-wait, --job-stop,
// --job-send, --job-keys, --job-screen) are the client side. The package
// never types into the shared pane: it only reads, through
// internal/platform, which shell runs there.
package jobs
