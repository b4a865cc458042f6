package call

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/pane"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// setUpLimit bounds the wait for a new shell's first prompt: a shell still reading its rc files
// past it, or a program of theirs that asks something, is left to the human as it is.
const setUpLimit = 3 * time.Second

// SetUpShell installs the hooks in the shell of a new bridge, before a terminal of the human's
// attaches: without them, only the screen tells the shell's prompt from keys its line editor has
// read, and a prompt of an unusual shape would be refused (see pane.State.hooklessLine). Nobody
// can type yet, so nothing is lost; a shell that is not at its prompt in time keeps no hooks.
func SetUpShell(ctx context.Context, b bridge.Bridge) error {
	ctx, cancel := context.WithTimeout(ctx, setUpLimit)
	defer cancel()
	for backoff := time.Millisecond; ; backoff = min(2*backoff, 64*time.Millisecond) {
		done, err := trySetUp(ctx, b)
		if done || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff):
		}
	}
}

// trySetUp sets the shell up if it waits at its prompt; done: it did, or never will.
func trySetUp(ctx context.Context, b bridge.Bridge) (done bool, err error) {
	t, err := b.Turn(ctx, bridge.SetUpCall, 0, time.Now(), io.Discard)
	if err != nil {
		return true, err
	}
	defer t.Close()
	want := pane.SetUp
	if b.Attached() { // another ptybridge joined meanwhile: its human may type, as into any shell
		want = pane.IntoShell
	}
	st, err := pane.Look(t, b, want)
	switch {
	case err != nil:
		return true, err
	case st.Refusal != nil:
		// Still starting (nothing in the foreground yet), or reading its rc files: it may come.
		starting := st.Foreground.PID <= 0 || st.Shell != nil && st.Foreground.PID == st.Shell.PID
		return !starting, nil
	case st.Shell == nil || st.Far != nil || !st.Shell.NeedsHooks:
		return true, nil
	}
	return installHooks(t, b, st.Shell)
}

// installHooks types the line that sources the hooks; done is false when the stream moved since
// the look (the shell still drawing its prompt), which a next look follows.
func installHooks(t *relay.Turn, b bridge.Bridge, sh *pane.Shell) (done bool, err error) {
	id, err := NewCallID(b.RuntimeDir)
	if err != nil {
		return true, err
	}
	script := b.RuntimeDir + "/" + string(id) + ".sh"
	defer os.Remove(script)
	line := markers.SourceLine(sh.Syntax, script)
	rows := markers.EchoRows(t.Column, len([]rune(line)), platform.Columns(sh.TTY))
	if err := os.WriteFile(script, []byte(markers.SetUpScript(sh.Syntax, sh.Name, b.RuntimeDir, rows)), 0o600); err != nil {
		return true, err
	}
	if typed, err := t.TypeIf(line + "\r"); err != nil || !typed {
		return err != nil, err
	}
	pane.RecordHooked(b, sh.PID)
	if awaitState(t, sh.PID, markers.StatePrompt, time.Second) {
		pane.RecordSetUpPrompt(b, t.PaneID)
	}
	return true, nil
}
