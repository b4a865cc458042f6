// Package human is the agent's side of the conversation with the human
// at the shared terminal, all of it without typing into the pane: what
// the human sees there (the screen, with the cursor), a message shown in
// their terminals (tmux's message line and the terminal bell), and
// asking their approval before a command is typed (ptybridge --confirm: a
// tmux popup running a tiny hidden mode of ptysend that reads one key).
// It runs tmux through internal/tmux only; whether the pane is free is
// internal/pane's business, running commands internal/session's.
package human
