// Package platform reads what the kernel says about the processes and the
// terminal of the shared pane: /proc (the foreground process group, names
// and command lines, wait channels, written bytes), the terminal's mode
// and input queue, and process exits through pidfds. It only reads: it
// never writes to a terminal, never signals a process and never runs tmux.
package platform
