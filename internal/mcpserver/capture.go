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

// capture collects what a mode writes to its stdout or stderr, bounded as
// the history's outputs are: the first and last parts, with a line where
// the middle was dropped. The mode's goroutines write while it runs, and a
// stream pump closing down may still write as it returns: once sealed,
// writes are dropped.
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
	// ptysend's notes come whole, one write each (the queue, a command
	// waiting for the user).
	if text := strings.TrimSpace(string(p)); text != "" && bytes.HasSuffix(p, []byte("\n")) {
		if len(text) > maxNote {
			text = text[strings.LastIndexByte(text, '\n')+1:]
			text = text[max(0, len(text)-maxNote):]
		}
		c.note = strings.ReplaceAll(text, "\n", " ")
	}
	return len(p), nil
}

// seal ends the capture and returns what was written.
func (c *capture) seal() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sealed = true
	return string(c.buf.Render(func(left int64) string {
		return fmt.Sprintf("[ptybridge: %d bytes left out here: a result keeps the first and last %d KiB]\n", left, relay.HistoryHead>>10)
	}))
}

// progress is how many bytes were written so far, and the last note.
func (c *capture) progress() (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return int(c.buf.Total()), c.note
}

// notifyProgress sends a progress notification every second while a call
// runs, when the client asked for them (a progress token): the time
// elapsed, the bytes of stdout so far, and the last note ptysend wrote to
// stderr (such as "the command is waiting for input in the shared
// terminal: ..."). It returns the function that stops it.
func notifyProgress(ctx context.Context, req *mcp.CallToolRequest, start time.Time, stdout, stderr *capture) (stop func()) {
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
				if _, note := stderr.progress(); note != "" {
					msg += "; " + note
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
