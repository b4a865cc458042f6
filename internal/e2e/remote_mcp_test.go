package e2e

import (
	"strings"
	"syscall"
	"testing"
)

// The MCP tools on a remote bridge: a tool call whose session is remote runs on the host (its
// own MCP server, over the master), with the results a local bridge gives; a cancelled call is
// stopped on the host; with no connection, a call is refused (75) with the hint to reconnect.
func TestRemoteMCPToolsRunOnTheHost(t *testing.T) {
	h := startRemoteHost(t)
	b := h.world()
	term := h.open(b)
	cs, progress := b.mcpClientWithProgress()
	on := func(args map[string]any) map[string]any {
		if args == nil {
			args = map[string]any{}
		}
		args["session"] = remoteSession
		return args
	}

	t.Run("run: stdout, stderr, exit status, on the host", func(t *testing.T) {
		r := b.callTool(cs, "run", on(map[string]any{"command": "echo out; echo err >&2; whoami; cd /usr/share; sh -c 'exit 3'"}))
		if r.isError || r.Stdout != "out\n"+otherUser+"\n" || r.Stderr != "err\n" || r.ExitCode != 3 {
			t.Fatalf("want out and %s, err, exit 3:\n%v", otherUser, r)
		}
		if got := b.run(at("--", "pwd")...); got != "/usr/share\n" {
			t.Fatalf("the CLI finds the shell elsewhere: %q", got)
		}
	})
	t.Run("the other tools give their structured results", func(t *testing.T) {
		var status struct {
			Free  bool `json:"free"`
			Shell struct{ User, Cwd string }
		}
		b.callTool(cs, "status", on(nil)).decode(t, &status)
		if !status.Free || status.Shell.User != otherUser || status.Shell.Cwd != "/usr/share" {
			t.Fatalf("status: %+v", status)
		}
		var history struct{ Commands []map[string]any }
		b.callTool(cs, "history", on(nil)).decode(t, &history)
		if n := len(history.Commands); n == 0 || history.Commands[n-1]["command"] != "pwd" {
			t.Fatalf("history: %+v", history)
		}
		var sessions struct{ Sessions []map[string]any }
		b.callTool(cs, "sessions", on(nil)).decode(t, &sessions)
		if len(sessions.Sessions) != 1 || sessions.Sessions[0]["remote"] != h.dest {
			t.Fatalf("sessions: want the remote bridge, got %+v", sessions)
		}
	})
	t.Run("a cancelled call is stopped on the host: Ctrl-C, then Ctrl-\\", func(t *testing.T) {
		b.cancelCall(cs, progress, func(msg string) bool {
			return strings.Contains(msg, "running for") && strings.Contains(msg, "8 bytes of output") && h.hostPaneRuns("sleep")
		}, "run", on(map[string]any{"command": `echo started; bash -c "trap '' INT; sleep 300"`, "timeout": 0}))
		b.waitFor("the cancelled command to be stopped on the host", func() bool { return !h.hostPaneRuns("sleep") })
		if r := b.callTool(cs, "run", on(map[string]any{"command": "echo usable"})); r.isError || r.Stdout != "usable\n" {
			t.Fatalf("after the cancellation:\n%v", r)
		}
	})
	t.Run("with no connection, a call is refused: later, after reconnecting", func(t *testing.T) {
		must(t, syscall.Kill(masterPID(t, b, h), syscall.SIGKILL))
		term.exited(t)
		r := b.callTool(cs, "run", on(map[string]any{"command": "echo typed"}))
		if !r.isError || r.Failure == nil || r.Failure.Code != 75 || r.Retry != "later" || !strings.Contains(r.Failure.Hint, "ptybridge --host "+h.dest+" again") {
			t.Fatalf("want a refusal (75) with the hint:\n%v", r)
		}
		h.open(b)
		if r := b.callTool(cs, "run", on(map[string]any{"command": "echo back; pwd"})); r.isError || r.Stdout != "back\n/usr/share\n" {
			t.Fatalf("reconnected:\n%v", r)
		}
	})
}
