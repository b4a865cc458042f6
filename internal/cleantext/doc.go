// Package cleantext turns what a command wrote to a terminal (one level
// of ONLCR undone) into the text a pipe would have carried: no escape
// sequences or invisible controls, "\r\n" and "\r\r\n" (a second pty)
// back to "\n", redraws (progress bars) collapsed to what a line last
// showed. Each line is interpreted as tmux parses it, on a one-line screen,
// and final at its "\n"; lines that need no interpreting pass untouched.
package cleantext
