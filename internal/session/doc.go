// Package session is everything that talks to tmux and to the shared pane:
// creating and attaching the bridge session (ptybridge), the relay that
// streams the pane's raw output to one caller at a time, and running one
// command in the pane (ptysend).
//
// tmux is always reached through the user's default server: $TMUX is
// removed from every tmux call, so ptybridge and ptysend agree on the server
// whether or not either of them runs inside another tmux. TMUX_TMPDIR is
// honoured, as tmux itself does.
package session
