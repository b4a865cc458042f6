// Package cleantext turns what a command wrote to a terminal into the text a
// pipe would have carried: escape sequences removed, terminal line endings
// ("\r\n", "\r\r\n" under a second pty) back to "\n", carriage-return
// redraws (progress bars, spinners) collapsed to what each line finally
// showed, and controls that show nothing dropped.
//
// It owns that translation and nothing else. It is pure: it reads only what
// is written to it and writes only to the io.Writer it was given. It knows
// nothing of tmux, panes, markers or processes; the caller extracts a
// command's bytes from the pane (with one level of ONLCR undone) and feeds
// them in.
//
// Each line is interpreted the way the pane's terminal (tmux) parses it, on
// a one-line screen: a cursor column, "\r" and "\b", and the few CSI
// sequences that edit the current line (EL, CHA, CUF, CUB, DCH, ECH). A line
// is final once its "\n" arrives, so memory is bounded by the longest line,
// and lines that need no interpreting are passed through untouched.
package cleantext
