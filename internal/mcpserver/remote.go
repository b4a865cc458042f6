package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/remote"
)

// A tool call for a remote bridge (ptybridge --host) runs on its host: the host's own MCP server
// (its ptysend --mcp, over the human's ssh master) takes the call as it came, so its result is
// the very one a local bridge gives, and a cancelled request is cancelled there (the SDK's
// client sends notifications/cancelled), which stops the command as a local one is stopped.
// One client session per remote bridge, opened at its first call and kept.

// hosts are the client sessions to the hosts' MCP servers, by session name.
type hosts struct {
	mu       sync.Mutex
	open     map[string]*hostServer
	progress sync.Map // the token of a call on a host -> where its progress goes
	tokens   atomic.Int64
}

// hostServer is one host's MCP server, and what it said on stderr.
type hostServer struct {
	cs     *mcp.ClientSession
	stderr *syncBuffer
}

// remoteCall runs the tool call on the host of the remote bridge r.
func (s *server) remoteCall(ctx context.Context, req *mcp.CallToolRequest, r *remote.Record) *mcp.CallToolResult {
	if err := r.Connected(); err != nil {
		s.closeHost(r.Name)
		return s.refused(err)
	}
	h, err := s.host(r)
	if err != nil {
		return s.refused(err)
	}
	params := &mcp.CallToolParams{Name: req.Params.Name, Arguments: req.Params.Arguments}
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		hostToken := fmt.Sprintf("ptybridge-%d", s.hosts.tokens.Add(1))
		params.SetProgressToken(hostToken)
		s.hosts.progress.Store(hostToken, func(p *mcp.ProgressNotificationParams) {
			p.ProgressToken = token
			req.Session.NotifyProgress(ctx, p)
		})
		defer s.hosts.progress.Delete(hostToken)
	}
	res, err := h.cs.CallTool(ctx, params)
	switch {
	case err == nil:
		return res
	case ctx.Err() != nil: // the host stops the call; the client has gone on
		code, why := failure.Stopped(ctx)
		return s.refused(&failure.Error{Code: code, Msg: why + " (on " + r.Dest + ")", Hint: failure.StoppedHint})
	}
	s.closeHost(r.Name)
	if !r.MasterAlive() {
		return s.refused(r.Lost())
	}
	return s.refused(&failure.Error{Msg: fmt.Sprintf("ptysend --mcp on %s failed: %v%s", r.Dest, err, h.stderr.said()),
		Hint: "call again (a new connection to the host's server is opened); if it fails again, ask the user to run ptybridge --host " + r.Dest + " again"})
}

// host is the client session of r's host's MCP server, started if need be.
func (s *server) host(r *remote.Record) (*hostServer, error) {
	s.hosts.mu.Lock()
	defer s.hosts.mu.Unlock()
	if h := s.hosts.open[r.Name]; h != nil {
		return h, nil
	}
	argv := []string{"--session", r.Name, "--mcp", "--timeout", s.cfg.Timeout.String(), "--max-time", s.cfg.MaxTime.String()}
	cmd := r.Command(remote.OverMaster(false), r.Words(argv...)...)
	h := &hostServer{stderr: &syncBuffer{}}
	cmd.Stderr = h.stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "ptysend-mcp", Version: s.cfg.Version}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if f, ok := s.hosts.progress.Load(req.Params.ProgressToken); ok {
				f.(func(*mcp.ProgressNotificationParams))(req.Params)
			}
		},
	})
	// Closing waits for the host's server to stop its calls (Ctrl-C, then Ctrl-\ 3 s later).
	transport := &mcp.CommandTransport{Command: cmd, TerminateDuration: 15 * time.Second}
	cs, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		return nil, &failure.Error{Msg: fmt.Sprintf("starting ptysend --mcp on %s: %v%s", r.Dest, err, h.stderr.said()),
			Hint: "the host's ptysend-mcp must be beside its ptysend: ask the user to run ptybridge --host " + r.Dest +
				" again with ptysend-mcp next to their ptybridge (go install ./cmd/... builds all three)"}
	}
	h.cs = cs
	if s.hosts.open == nil {
		s.hosts.open = map[string]*hostServer{}
	}
	s.hosts.open[r.Name] = h
	return h, nil
}

// closeHost ends the client session of the remote bridge name, if one is open.
func (s *server) closeHost(name string) {
	s.hosts.mu.Lock()
	h := s.hosts.open[name]
	delete(s.hosts.open, name)
	s.hosts.mu.Unlock()
	if h != nil {
		h.cs.Close()
	}
}

// closeHosts ends them all, each once its host's server has stopped its calls.
func (s *server) closeHosts() {
	s.hosts.mu.Lock()
	open := s.hosts.open
	s.hosts.open = nil
	s.hosts.mu.Unlock()
	for _, h := range open {
		h.cs.Close()
	}
}

// syncBuffer keeps the first 4 KiB or so that the host's side writes on stderr.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.buf.Len() > 4096 {
		return len(p), nil
	}
	return b.buf.Write(p)
}

// said is what the host's side wrote on stderr, for an error message.
func (b *syncBuffer) said() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if words := strings.Fields(b.buf.String()); len(words) > 0 {
		return ": " + strings.Join(words, " ")
	}
	return ""
}
