package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptybridge/ptybridge/internal/relay"
)

// capture collects what a mode writes to stdout or stderr, bounded as the
// history's outputs are (the first and last parts). A stream pump closing
// down may still write as the mode returns: once sealed, writes are dropped.
type capture struct {
	mu     sync.Mutex
	buf    *relay.Buffer
	sealed bool
	note   string // the last complete write, for progress messages
}

func newCapture() *capture {
	return &capture{buf: relay.NewBuffer(relay.HistoryBound, relay.HistoryHead)}
}

// maxNote bounds a note: a longer write gives its last line.
const maxNote = 512

func (c *capture) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sealed {
		return len(p), nil
	}
	c.buf.Write(p)
	// ptysend writes each note (the queue, a command waiting for the user) whole.
	if text := strings.TrimSpace(string(p)); text != "" && bytes.HasSuffix(p, []byte("\n")) {
		if len(text) > maxNote {
			text = text[strings.LastIndexByte(text, '\n')+1:]
			text = text[max(0, len(text)-maxNote):]
		}
		c.note = strings.ReplaceAll(text, "\n", " ")
	}
	return len(p), nil
}

func (c *capture) seal() sealed {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sealed = true
	segs := c.buf.Read(0) // the head, and the tail when the middle was left out
	s := sealed{text: string(segs[0].Data), left: c.buf.Dropped()}
	s.seam = len(s.text)
	if len(segs) == 2 {
		s.text += string(segs[1].Data)
	}
	return s
}

// sealed is what a capture kept: the first and last parts when it left out the middle.
type sealed struct {
	text string
	seam int   // where the middle was left out
	left int64 // how many bytes of it
}

// progress is how many bytes were written so far, and the last note.
func (c *capture) progress() (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int(c.buf.Total()), c.note
}

// notifyProgress tells a client that asked (a progress token), every second
// while a call runs, the time elapsed, the bytes of stdout so far, and
// ptybridge's last note, such as a command waiting for input, in the tools' words.
func notifyProgress(ctx context.Context, req *mcp.CallToolRequest, start time.Time, stdout, notes *capture, say func(string) string) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				elapsed := time.Since(start)
				out, _ := stdout.progress()
				msg := fmt.Sprintf("running for %v, %d bytes of output so far", elapsed.Round(time.Second), out)
				if _, note := notes.progress(); note != "" {
					msg += "; " + say(strings.TrimPrefix(note, "ptysend: "))
				}
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: elapsed.Seconds(), Message: msg})
			}
		}
	})
	return func() {
		cancel()
		wg.Wait()
	}
}
