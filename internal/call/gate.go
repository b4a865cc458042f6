package call

import (
	"bytes"
	"io"
	"sync"
	"time"
)

// gate sits between the extractor and stdout. While a command is being interrupted, its output is
// held back: an interrupted shell drops the rest of the line, END never comes, and what follows the
// terminal's "^C" echo is the shell's next prompt, not output.
type gate struct {
	mu     sync.Mutex
	w      io.Writer
	held   *bytes.Buffer
	echoed chan struct{} // closed once held shows the interrupt's echo
	shut   bool          // released after an interrupt: the rest is the shell's
}

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.shut:
		return len(p), nil
	case g.held != nil:
		g.held.Write(p)
		if interruptEcho(g.held.Bytes()) >= 0 && g.echoed != nil {
			close(g.echoed)
			g.echoed = nil
		}
		return len(p), nil
	}
	return g.w.Write(p)
}

func (g *gate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.held, g.echoed = new(bytes.Buffer), make(chan struct{})
}

// awaitEcho waits up to limit for the interrupt's echo: the shell can be back before the output is.
func (g *gate) awaitEcho(limit time.Duration) {
	g.mu.Lock()
	echoed := g.echoed
	g.mu.Unlock()
	if echoed == nil {
		return
	}
	select {
	case <-echoed:
	case <-time.After(limit):
	}
}

// release passes on what was held: after END (the command handled the
// interrupt), all but the interrupt keys' echoes; else only what came
// before the echo (nothing without one: echo was off), then nothing.
func (g *gate) release(finished bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	b := g.held.Bytes()
	g.held, g.echoed, g.shut = nil, nil, !finished
	if finished {
		b = bytes.ReplaceAll(b, []byte("^C"), nil)
		g.w.Write(bytes.ReplaceAll(b, []byte(`^\`), nil))
	} else if i := interruptEcho(b); i >= 0 {
		g.w.Write(b[:i])
	}
}

// interruptEcho is where the terminal echoed Ctrl-C ("^C") or Ctrl-\ ("^\\"), or -1.
func interruptEcho(b []byte) int {
	i := bytes.Index(b, []byte("^C"))
	if j := bytes.Index(b, []byte(`^\`)); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	return i
}
