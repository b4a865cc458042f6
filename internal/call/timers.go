package call

import (
	"time"
)

// Timer is a timer that never fires when its duration is zero: the
// no-output and overall timeouts of a call.
type Timer struct{ t *time.Timer }

func NewTimer(d time.Duration) *Timer {
	if d <= 0 {
		return &Timer{}
	}
	return &Timer{time.NewTimer(d)}
}

// C fires when the time is up; nil (never) for a zero timer.
func (t *Timer) C() <-chan time.Time {
	if t.t == nil {
		return nil
	}
	return t.t.C
}

// Reset starts the timer over with d (a zero timer stays zero).
func (t *Timer) Reset(d time.Duration) {
	if t.t != nil {
		t.t.Reset(d)
	}
}

func (t *Timer) Stop() {
	if t.t != nil {
		t.t.Stop()
	}
}

// Remaining is what is left of limit since start: zero when there is no
// limit, never zero (so never "no limit") once it has passed.
func Remaining(start time.Time, limit time.Duration) time.Duration {
	if limit <= 0 {
		return 0
	}
	if left := time.Until(start.Add(limit)); left > 0 {
		return left
	}
	return time.Nanosecond
}

// A command that waits for the human is noticed by looks at the kernel's
// view of the pane (the foreground program sleeps reading the terminal):
// the first soon after the output stops, since a question is the last
// thing a program prints before it reads, then less and less often while
// nothing happens. The human is told of the question at once, even when
// they answer it long before --timeout.
const (
	firstLook = 15 * time.Millisecond
	lastGap   = 2 * time.Second
)

// lookTimer says when to look next.
type lookTimer struct {
	t   *time.Timer
	gap time.Duration
}

func newLookTimer() *lookTimer { return &lookTimer{t: time.NewTimer(firstLook), gap: firstLook} }

func (l *lookTimer) c() <-chan time.Time { return l.t.C }

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
