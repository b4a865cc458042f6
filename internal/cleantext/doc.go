// Package cleantext turns what a command wrote to a terminal (one level
// of ONLCR undone) into the text a pipe would have carried: escape
// sequences removed, line endings ("\r\n", "\r\r\n" under a second pty)
// back to "\n", redraws (progress bars, spinners) collapsed to what each
// line finally showed, controls that show nothing dropped. It is pure.
//
// Each line is interpreted as tmux, the pane's terminal, parses it, on a
// one-line screen: a cursor column, "\r", "\b", and the CSI sequences that
// edit the line. A line is final at its "\n", so memory is bounded by the
// longest line; lines that need no interpreting pass through untouched.
package cleantext
