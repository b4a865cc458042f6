package human

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// With ptybridge --confirm, nothing of the agent's is typed before the
// human says yes. The question shows in a tmux popup over their terminal
// (nothing is typed into the pane for it), run by a hidden mode of
// ptysend itself (AskFlag), which shows it and reads one key: y runs it,
// n or Escape refuses. tmux's display-popup returns when the popup
// closes, however it closes (the answer, the terminal going away,
// display-popup -C when ptysend gives up), so ptysend never waits for an
// answer that cannot come.

// AskFlag is the hidden flag of ptysend that runs in the popup, with the
// file holding the question.
const AskFlag = "--confirm-ask"

// Question is what the human is asked to approve.
type Question struct {
	// Action says what would be done, completing "The agent wants to ...":
	// "run this in the shared terminal".
	Action string
	// Text is the command or expression, as it would be typed.
	Text string
}

// answer file contents.
const (
	yes = "yes"
	no  = "no"
)

// Ask shows q to the human in the terminal they used last and waits for
// their answer, up to limit (zero: no limit). It returns nil when they
// said yes; an *Error with failure.ExitRefused when they said no or
// closed the question, failure.ExitTimeout when nobody answered in time,
// and failure.Stopped's status when ctx ended meanwhile. The popup runs this
// program (b.Exe) with AskFlag.
func Ask(ctx context.Context, b bridge.Bridge, q Question, limit time.Duration) error {
	cs, err := clients(b)
	if err != nil {
		return err
	}
	if len(cs) == 0 {
		return &failure.Error{
			Msg:  "the user approves each command here (ptybridge --confirm), but no terminal of theirs is attached to show the question in; nothing was typed",
			Hint: "ask the user to open the shared terminal (run ptybridge in a terminal window), then retry",
		}
	}
	c := mostRecent(cs)
	id, err := markers.NewID()
	if err != nil {
		return failure.From(err)
	}
	file := filepath.Join(b.RuntimeDir, string(id)+".ask")
	if err := os.WriteFile(file, []byte(q.Action+"\n"+q.Text), 0o600); err != nil {
		return failure.From(err)
	}
	defer os.Remove(file)
	defer os.Remove(answerFile(file))

	w, h := popupSize(q, c.width, c.height)
	popup, cancel := context.WithCancel(context.Background())
	defer cancel()
	closed := make(chan error, 1)
	go func() {
		_, err := tmux.RunUntil(popup, "display-popup", "-E", "-c", c.name,
			"-w", strconv.Itoa(w), "-h", strconv.Itoa(h), "-T", " ptybridge: the agent asks ",
			b.Exe, AskFlag, file)
		closed <- err
	}()
	ringBell(c.tty)

	var deadline <-chan time.Time
	if limit > 0 {
		timer := time.NewTimer(limit)
		defer timer.Stop()
		deadline = timer.C
	}
	select {
	case err := <-closed:
		if tmux.IsMissingSession(err) {
			return noBridgeOr(err)
		}
		if err != nil {
			return &failure.Error{
				Msg:  "the user approves each command here (ptybridge --confirm), and showing them the question failed: " + err.Error() + "; nothing was typed",
				Hint: "ask the user to look at the ptybridge terminal (is it very small?), then retry",
			}
		}
		return verdict(file, q)
	case <-deadline:
		closePopup(c, closed, cancel)
		return &failure.Error{
			Code: failure.ExitTimeout,
			Msg:  fmt.Sprintf("the user did not answer whether to run it within %v (--max-time); the question was closed and nothing was typed", limit),
			Hint: "ask the user to look at the ptybridge terminal and retry, or retry with a larger --max-time",
		}
	case <-ctx.Done():
		closePopup(c, closed, cancel)
		code, why := failure.Stopped(ctx)
		return &failure.Error{Code: code, Msg: why + " while asking the user; nothing was typed"}
	}
}

// closePopup closes the question on the human's terminal and waits a
// moment for display-popup to return, then stops waiting for it.
func closePopup(c client, closed <-chan error, cancel func()) {
	tmux.Run("display-popup", "-C", "-c", c.name)
	select {
	case <-closed:
	case <-time.After(time.Second):
		cancel()
	}
}

func answerFile(question string) string { return question + ".answer" }

// verdict reads the human's answer once the popup has closed.
func verdict(file string, q Question) error {
	got, _ := os.ReadFile(answerFile(file))
	switch strings.TrimSpace(string(got)) {
	case yes:
		return nil
	case no:
		return refused(q, "the user refused to run it")
	}
	return refused(q, "the user closed the question without answering, so it was not run")
}

func refused(q Question, why string) error {
	return &failure.Error{
		Code: failure.ExitRefused,
		Msg:  fmt.Sprintf("%s: %s; nothing was typed", why, oneLine(q.Text, 200)),
		Hint: "ask the user why, or do something else; do not retry the same thing unasked",
	}
}

// oneLine shortens text to one line of at most n characters for a message.
func oneLine(text string, n int) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	s := lines[0]
	more := len(lines) > 1
	if r := []rune(s); len(r) > n {
		s, more = string(r[:n]), true
	}
	if more {
		s += " …"
	}
	return strconv.Quote(s)
}
