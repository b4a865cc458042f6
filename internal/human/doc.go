// Package human is the agent's side of the conversation with the human
// at the shared terminal, all of it without typing into the pane: what
// the human sees there (the screen, with the cursor) and a message shown
// in their terminals (tmux's message line and the terminal bell). It
// runs tmux through internal/tmux only; whether the pane is free is
// internal/pane's business, running commands internal/session's.
package human
