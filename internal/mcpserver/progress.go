package mcpserver

import (
	"context"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressEvery is how often a call in progress says so, when the client
// asked for progress (a progress token in the request).
const progressEvery = time.Second

// notifyProgress sends a progress notification every progressEvery while
// a call runs: the time elapsed, the bytes of stdout so far, and the last
// note ptysend wrote to stderr (such as "the command is waiting for input
// in the shared terminal: ..."). It returns the function that stops it.
func notifyProgress(ctx context.Context, req *mcp.CallToolRequest, start time.Time, stdout, stderr *capture) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return func() {}
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				elapsed := time.Since(start)
				out, _ := stdout.progress()
				_, note := stderr.progress()
				msg := fmt.Sprintf("running for %v, %d bytes of output so far", elapsed.Round(time.Second), out)
				if note != "" {
					msg += "; " + note
				}
				req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token,
					Progress:      elapsed.Seconds(),
					Message:       msg,
				})
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
