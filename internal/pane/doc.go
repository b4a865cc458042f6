// Package pane decides what the shared pane is doing and whether the
// agent may type into it: the shell in its foreground (and whether ptysend
// can drive it), the shell's own prompt and command events, the human's
// half-typed line or typeahead, copy mode, and a program waiting for the
// human. Every check reads the processes and the terminal (through
// internal/platform) and the relay's stream; none types anything, except
// TypeSourceLine, which types only after those checks said yes.
package pane
