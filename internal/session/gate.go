package session

import (
	"bytes"
	"io"
	"sync"
)

// gate sits between the extractor and stdout. While a command is being
// interrupted, its output is held back: an interrupted shell drops the
// rest of the line, END never comes, and what follows the terminal's "^C"
// echo is the shell's next prompt, not output.
type gate struct {
	mu   sync.Mutex
	w    io.Writer
	held *bytes.Buffer
}

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held != nil {
		return g.held.Write(p)
	}
	return g.w.Write(p)
}

// hold starts holding output back.
func (g *gate) hold() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held == nil {
		g.held = new(bytes.Buffer)
	}
}

// release passes on what was held: all of it when the command reached its
// END marker (it handled the interrupt and finished), else only what came
// before the first interrupt echo.
func (g *gate) release(finished bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held == nil {
		return
	}
	b := g.held.Bytes()
	if !finished {
		b = b[:cutAtInterruptEcho(b)]
	}
	g.w.Write(b)
	g.held = nil
}

// cutAtInterruptEcho is where the terminal echoed Ctrl-C or Ctrl-\, or 0
// when it did not (the program turned echo off): then nothing held is known
// to be output.
func cutAtInterruptEcho(b []byte) int {
	i := bytes.Index(b, []byte("^C"))
	if j := bytes.Index(b, []byte(`^\`)); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i < 0 {
		return 0
	}
	return i
}
