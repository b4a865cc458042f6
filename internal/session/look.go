package session

import "time"

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
