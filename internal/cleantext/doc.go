// Package cleantext turns what a command wrote to a terminal into the text a
// pipe would have carried: escape sequences removed, terminal line endings
// ("\r\n", "\r\r\n" under a second pty) back to "\n", carriage-return
// redraws (progress bars, spinners) collapsed to what each line finally
// showed, and controls that show nothing dropped.
//
// It is pure: it reads only what is written to it and writes only to the
// io.Writer it was given, knowing nothing of tmux, panes or processes; the
// caller feeds it a command's bytes from the pane, one level of ONLCR
// undone.
//
// Each line is interpreted the way the pane's terminal (tmux) parses it, on
// a one-line screen: a cursor column, "\r" and "\b", and the few CSI
// sequences that edit the current line (EL, CHA, CUF, CUB, DCH, ECH, ICH).
// A line is final once its "\n" arrives, so memory is bounded by the
// longest line, and lines that need no interpreting are passed through
// untouched.
package cleantext
