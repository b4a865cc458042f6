package session

import (
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/pane"
)

// A command that waits for the human is noticed by looks at /proc (the
// foreground program sleeps reading the terminal): the first soon after
// the output stops, since a question is the last thing a program prints
// before it reads, then less and less often while nothing happens. Each
// costs a few reads of /proc, no tmux process; the human is told of the
// question at once, even when they answer it long before --timeout.
const (
	firstLook = 15 * time.Millisecond
	lastGap   = 2 * time.Second
)

// lookTimer says when to look next.
type lookTimer struct {
	t   *time.Timer
	gap time.Duration
}

func newLookTimer() *lookTimer {
	return &lookTimer{t: time.NewTimer(firstLook), gap: firstLook}
}

func (l *lookTimer) C() <-chan time.Time { return l.t.C }

// afterOutput starts over: output came, the next look is soon after it.
func (l *lookTimer) afterOutput() {
	l.gap = firstLook
	l.t.Reset(l.gap)
}

// later schedules the next look after one that found nothing new.
func (l *lookTimer) later() {
	l.gap = min(4*l.gap, lastGap)
	l.t.Reset(l.gap)
}

func (l *lookTimer) stop() { l.t.Stop() }

// questions is what a look reads of the pane: whether its foreground
// program sleeps until the human answers the terminal (/proc only), and
// the question the terminal shows on its cursor line (one tmux call).
type questions interface {
	waitsForHuman() bool
	asks() string
}

// paneQuestions are the questions of the shared pane.
type paneQuestions struct {
	pid int    // the pane's process
	id  string // the pane
}

func (p paneQuestions) waitsForHuman() bool { return pane.WaitsForHuman(p.pid) }
func (p paneQuestions) asks() string        { return pane.WhatTheTerminalAsks(p.id) }

// isQuestion reports whether the line the command's output shows last is
// the question the terminal asks (its cursor line, asks): the pending
// line of stdout, or, when that is empty, the unfinished last line of
// stderr. The cursor line of a question wider than the terminal is its
// last row only: the end of the line.
func isQuestion(stdoutLine, stderrLine, asks string) bool {
	line := strings.TrimSpace(stdoutLine)
	if line == "" {
		line = strings.TrimSpace(cleantext.String(stderrLine))
	}
	asks = strings.TrimSpace(asks)
	return asks != "" && line != "" && strings.HasSuffix(line, asks)
}
