package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/relay"
	"github.com/ptybridge/ptybridge/internal/rundir"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

const NoBridgeMessage = "Error: No PTY bridge session is running.\n" +
	"\n" +
	"You have used `ptysend`, but it currently has nowhere to send to.\n" +
	"\n" +
	"The user needs to start the interactive backing terminal using `ptybridge`.\n" +
	"Do not try this yourself - instead, ask the user to do it for you.\n" +
	"\n" +
	"This is necessary for *interactive* commands - for example, sudo (requiring\n" +
	"a password prompt). If you can avoid interactive tools, then prefer that.\n" +
	"Otherwise, please ask the user now.\n"

// Turn reaches the bridge's relay (repairing it) and waits for this call's
// turn at the pane, within maxTime from start, telling stderr what holds it;
// call, as the agent typed it, is shown to the calls queued behind it.
func (b Bridge) Turn(ctx context.Context, call string, maxTime time.Duration, start time.Time, stderr io.Writer) (*relay.Turn, error) {
	asked := b.asked.take()
	if asked == nil {
		if err := rundir.Ensure(b.RuntimeDir); err != nil {
			return nil, failure.From(err)
		}
	}
	deadline := time.Time{}
	if maxTime > 0 {
		deadline = start.Add(maxTime)
	}
	waits := waitNotices{stderr: stderr}
	path := b.SocketPath()
	for attempt := 0; ; attempt++ {
		t, err := asked, error(nil)
		if asked != nil {
			if err = asked.Wait(ctx, deadline, waits.tell); err != nil {
				t = nil
			}
			asked = nil
		} else {
			t, err = relay.RequestTurn(ctx, path, shortCall(call), deadline, waits.tell)
		}
		switch {
		case err == nil && ctx.Err() != nil:
			t.Close()
			return nil, cancelled(ctx)
		case err == nil:
			return t, nil
		case ctx.Err() != nil:
			return nil, cancelled(ctx)
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, &failure.Error{
				Code: failure.ExitTimeout,
				Msg:  fmt.Sprintf("--max-time %v passed while %s was using the shared terminal; nothing was run", maxTime, waits.holder()),
				Hint: "wait for the other call to finish, or retry with a larger --max-time",
			}
		case attempt > 0 && errors.Is(err, relay.ErrHungUp):
			return nil, b.Closed(false)
		case attempt > 0:
			return nil, failure.From(err)
		}
		// It died, is of another version, or died as we came: repair it.
		if path, err = b.repairRelay(errors.Is(err, relay.ErrVersion)); err != nil {
			return nil, err
		}
	}
}

// AskTurn asks the relay for the turn of call (as the agent typed it) now, and Turn waits for it:
// the relay answers while ptysend sets itself up for the call (one processor, its stop signals). A
// relay that cannot be asked now (none runs, the runtime directory is not ours) is left to Turn.
func (b *Bridge) AskTurn(call string) {
	if rundir.Ensure(b.RuntimeDir) != nil {
		return
	}
	if t, err := relay.AskTurn(b.SocketPath(), shortCall(call)); err == nil {
		b.asked = &askedTurn{t}
	}
}

// askedTurn is shared by the copies of a Bridge: the first Turn takes it up.
type askedTurn struct{ t *relay.Turn }

func (a *askedTurn) take() *relay.Turn {
	if a == nil {
		return nil
	}
	t := a.t
	a.t = nil
	return t
}

// cancelled is the error of a call stopped before its turn: 128+N, as any stopped call.
func cancelled(ctx context.Context) error {
	code, why := failure.Stopped(ctx)
	return &failure.Error{Code: code, Msg: why + " before its turn at the shared terminal; nothing was typed", Hint: failure.StoppedHint}
}

func (b Bridge) repairRelay(replacing bool) (string, error) {
	path, err := b.startRelay(replacing)
	switch {
	case errors.Is(err, tmux.ErrNoTmux):
		return "", &failure.Error{Verbatim: NoBridgeMessage}
	case errors.Is(err, errNoSession):
		return "", b.Missing()
	case err != nil:
		return "", failure.From(err)
	}
	return path, nil
}

// Status asks the relay where the pane stands, without a turn: it answers
// while a call holds the pane, with no tmux process. Only a relay that
// does not answer is repaired.
func (b Bridge) Status() (*relay.Status, error) {
	if err := rundir.Ensure(b.RuntimeDir); err != nil {
		return nil, failure.From(err)
	}
	s, err := relay.QueryStatus(b.SocketPath())
	for attempt := 0; err != nil && attempt < 2 && !relay.IsAnswer(err); attempt++ {
		path, rerr := b.repairRelay(errors.Is(err, relay.ErrVersion))
		if rerr != nil {
			return nil, rerr
		}
		s, err = relay.QueryStatus(path)
	}
	return s, queryFailure(err)
}

// Query asks the relay with ask; one that does not answer, or speaks another version, is repaired
// as Status does, and asked again.
func Query[T any](b Bridge, ask func(path string) (T, error)) (T, error) {
	if err := rundir.Ensure(b.RuntimeDir); err != nil {
		return *new(T), failure.From(err)
	}
	v, err := ask(b.SocketPath())
	if err != nil && !relay.IsAnswer(err) {
		if _, err := b.Status(); err != nil { // reaches, or repairs, the relay
			return *new(T), err
		}
		v, err = ask(b.SocketPath())
	}
	if relay.IsAnswer(err) {
		return v, &failure.Error{Msg: err.Error(), Hint: "ptysend --history lists the commands it holds, with their ids"}
	}
	return v, queryFailure(err)
}

func queryFailure(err error) error {
	if err == nil || relay.IsAnswer(err) {
		return err
	}
	return &failure.Error{
		Msg:  "asking the bridge's relay failed: " + err.Error(),
		Hint: "retry; if it happens again, ask the user to restart ptybridge",
	}
}

func (b Bridge) Closed(running bool) error {
	what := "the bridge terminal was closed"
	if running {
		what += " while the command was running"
	}
	if _, err := tmux.Run("has-session", "-t", b.target()); err == nil {
		return &failure.Error{
			Msg:  "lost the output stream of the shared terminal (its relay stopped)",
			Hint: "retry the command; if it happens again, ask the user to restart ptybridge",
		}
	}
	return &failure.Error{
		Msg:  what,
		Hint: "ask the user to restart ptybridge in a terminal, then rerun the command (the shell's state, such as cd and variables, is gone)",
	}
}

// Missing explains a bridge session that does not exist: when others run
// (the agent asked for another name), it names them.
func (b Bridge) Missing() error {
	running := List()
	if len(running) == 0 {
		return &failure.Error{Verbatim: NoBridgeMessage}
	}
	quoted := make([]string, len(running))
	for i, s := range running {
		quoted[i] = strconv.Quote(s.Name)
	}
	what := "the bridge session that runs is " + quoted[0]
	if len(running) > 1 {
		what = "the bridge sessions that run are " + strings.Join(quoted, ", ")
	}
	return &failure.Error{
		Msg: fmt.Sprintf("no bridge session named %q is running; %s", b.Name, what),
		Hint: fmt.Sprintf("to send there, use --session %s; to have a bridge under the name %q, ask the user to open it with: ptybridge --session %s",
			shellWord(running[0].Name), b.Name, shellWord(b.Name)),
	}
}

type Session struct {
	Name     string
	Attached int    // terminals attached
	Command  string // what ptybridge was opened with (-- COMMAND)
}

func List() []Session {
	out, err := tmux.Run("list-sessions", "-F", "#{@ptybridge_pane}\t#{session_name}\t#{session_attached}\t#{@ptybridge_command}")
	if err != nil {
		return nil
	}
	var list []Session
	// Not trimmed: a plain bridge's command, the last field, is empty.
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 4 || f[0] == "" {
			continue
		}
		s := Session{Name: f[1], Command: f[3]}
		fmt.Sscan(f[2], &s.Attached)
		list = append(list, s)
	}
	return list
}

func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=@%,/") == "" {
		return s
	}
	return markers.QuotePOSIX(s)
}

// SetUpCall names the turn in which ptybridge sets a new bridge's shell up (call.SetUpShell): a
// call waits for it without a note, as for a shell still starting.
const SetUpCall = "(ptybridge setting up the shared shell)"

// waitNotices says on stderr what holds the terminal since when: once,
// and again when the holder changes.
type waitNotices struct {
	stderr io.Writer
	last   relay.Queued
	told   bool
}

func (w *waitNotices) tell(q relay.Queued) {
	if w.told && q.Since.Equal(w.last.Since) && q.Call == w.last.Call || q.Call == SetUpCall {
		return
	}
	w.last, w.told = q, true
	after := "it is done"
	if q.Ahead > 1 {
		after = fmt.Sprintf("it and the %d calls queued before this one are done", q.Ahead-1)
	}
	fmt.Fprintf(w.stderr, "ptysend: waiting: %s holds the shared terminal since %s (%s ago); this call runs when %s\n",
		w.holder(), q.Since.Format("15:04:05"), time.Since(q.Since).Round(time.Second), after)
}

func (w *waitNotices) holder() string {
	if w.last.Call == "" {
		return "another ptysend call"
	}
	return fmt.Sprintf("another ptysend call, %q,", w.last.Call)
}

func shortCall(call string) string {
	line, _, multi := strings.Cut(strings.TrimSpace(call), "\n")
	return markers.ShortLine(strings.TrimSpace(line), 80, multi)
}
