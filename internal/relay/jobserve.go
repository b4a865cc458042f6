package relay

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// A job window's relay answers these requests:
//
//	info               -> job NAME COMMAND ENDED STATUS STARTED ENDED OUT ERR LAST PANE STOPPED WAITERS
//	read STREAM SINCE  -> total TOTAL ENDED, data STREAM OFFSET LENGTH BYTES..., end
//	follow OUT ERR     -> data ... as it comes, then "ended STATUS" or "gone"   (ERR -1: from now on)
//	stop               -> job INFO, data out ..., data err ..., stopped      (kept.go)
//	send TEXT ENTER    -> ok          close -> ok (an ended job's window goes)
//	activate ID NAME COMMAND SOCKET READY -> ok PANE       discard

// serve answers a client's requests, from m on, until it hangs up.
func (j *job) serve(c *os.File, r *bufio.Reader, m message) {
	for err := error(nil); err == nil; m, err = readMessage(r) {
		if err := j.answer(c, r, m); err != nil {
			if err != errLast {
				send(c, "error", err.Error())
			}
			return
		}
	}
}

// errLast: the request was a connection's last.
var errLast = errors.New("the last request")

func (j *job) answer(c *os.File, r *bufio.Reader, m message) error {
	switch verb := m.verb(); {
	case verb == "info" && m.fieldCount(0):
		return j.info(c)
	case verb == "read" && m.fieldCount(2):
		if stream, since := m.field(1), m.int64(2); m.err == nil {
			return j.read(c, stream, since)
		}
	case verb == "follow" && m.fieldCount(2):
		if out, err := m.int64(1), m.int64(2); m.err == nil {
			return j.follow(c, r, out, err)
		}
	case verb == "send" && m.fieldCount(2):
		if text, enter := m.text(1), m.bool(2); m.err == nil {
			return j.typeText(c, text, enter)
		}
	case verb == "activate" && m.fieldCount(5):
		if id, name, command, socket, ready := markers.ID(m.text(1)), m.text(2), m.text(3), m.text(4), m.text(5); m.err == nil {
			return j.activate(c, id, name, command, socket, ready)
		}
	case verb == "stop":
		return j.stop(c)
	case verb == "close":
		return j.closeWindow(c)
	case verb == "discard":
		tmux.Run("kill-pane", "-t", j.s.cfg.PaneID)
		return errLast
	default:
		return fmt.Errorf("bad request %q", strings.Join(m.words, " "))
	}
	return m.err
}

func (j *job) info(w io.Writer) error {
	j.s.mu.Lock()
	b := appendInfo(nil, j.infoNow())
	j.s.mu.Unlock()
	_, err := w.Write(b)
	return err
}

// infoNow is what info answers. Call with s.mu held.
func (j *job) infoNow() Info {
	last := j.out
	if j.lastErr {
		last = j.err
	}
	info := Info{Name: j.Name, Command: j.Command, Running: j.state != ended, Started: j.started,
		OutputBytes: j.out.Total(), StderrBytes: j.err.Total(), LastLine: lastLine(last.Tail(4096)),
		Pane: j.s.cfg.PaneID, Waiters: j.waiters, FullScreen: j.s.tracker.Alternate() == cleantext.On}
	if !info.Running {
		info.Status, info.Ended = new(j.status), new(j.endedAt)
	}
	return info
}

// lastLine is the last line with text of the output, as clean text.
func lastLine(out []byte) string {
	lines := typedLine(out)
	return lines[strings.LastIndexByte(lines, '\n')+1:]
}

func (j *job) read(w io.Writer, stream string, since int64) error {
	buf := map[string]*Buffer{"out": j.out, "err": j.err}[stream]
	if buf == nil {
		return errors.New("no such stream")
	}
	j.s.mu.Lock()
	b := appendRead(appendMessage(nil, "total", buf.Total(), j.state == ended), stream, buf, since)
	j.s.mu.Unlock()
	_, err := w.Write(appendMessage(b, "end"))
	return err
}

// follow sends the output from the given offsets on (errPos -1: stderr
// from now on), then what comes as it comes: a waiting client hears of a
// new line the moment the relay reads it, never a polling interval later.
func (j *job) follow(c *os.File, r *bufio.Reader, outPos, errPos int64) error {
	s := j.s
	hungUp := false
	go func() {
		io.Copy(io.Discard, r) // a follow is the last request: this is the hang-up
		s.mu.Lock()
		hungUp = true
		s.moved.Broadcast()
		s.mu.Unlock()
	}()
	s.mu.Lock()
	j.waiters++
	defer func() {
		j.waiters--
		s.mu.Unlock()
	}()
	if errPos < 0 {
		errPos = j.err.Total()
	}
	for {
		for !hungUp && !s.gone && j.state != ended && j.out.Total() <= outPos && j.err.Total() <= errPos {
			s.moved.Wait()
		}
		if hungUp {
			return errLast
		}
		b := appendNew(nil, "out", j.out, &outPos)
		b = appendNew(b, "err", j.err, &errPos)
		done, gone := j.state == ended, s.gone
		switch {
		case done:
			b = appendMessage(b, "ended", j.status)
		case gone:
			b = appendMessage(b, "gone")
		}
		s.mu.Unlock()
		_, err := c.Write(b)
		s.mu.Lock()
		if err != nil || done || gone {
			return errLast
		}
	}
}

// appendNew appends what buf got after *pos, and moves *pos to its end.
func appendNew(b []byte, stream string, buf *Buffer, pos *int64) []byte {
	if buf.Total() <= *pos {
		return b
	}
	b = appendRead(b, stream, buf, *pos)
	*pos = buf.Total()
	return b
}

// appendRead appends what buf keeps from since on, as data messages of stream.
func appendRead(b []byte, stream string, buf *Buffer, since int64) []byte {
	for _, seg := range buf.Read(since) {
		if len(seg.Data) > 0 {
			b = appendData(b, stream, seg.Offset, seg.Data)
		}
	}
	return b
}

func (j *job) typeText(w io.Writer, text string, enter bool) error {
	j.s.mu.Lock()
	paste := j.s.tracker.Paste()
	j.s.mu.Unlock()
	if err := j.s.typeKeys([]byte(TypedText(text, paste, enter))); err != nil {
		return fmt.Errorf("typing into the job's window: %w", err)
	}
	return send(w, "ok")
}

// TypedText is text as tmux's paste-buffer -p types it, then Enter if
// enter: newlines as "\r", and bracketed when the program asked for it (a
// line editor then takes lines as one edit, a TAB as text), a paste-end
// sequence in the text dropped. No word is a key name.
func TypedText(text string, paste cleantext.Mode, enter bool) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\n", "\r")
	if paste == cleantext.On && text != "" { // xterm's bracketed paste, as tmux sends it
		text = "\x1b[200~" + strings.ReplaceAll(text, "\x1b[201~", "") + "\x1b[201~"
	}
	if enter {
		text += "\r"
	}
	return text
}

const killGrace = 3 * time.Second // each phase of a stop waits this for the job to end

// stop tries Ctrl-C, then Ctrl-\ (SIGINT, SIGQUIT to the job's process group
// by the window's line discipline), then SIGKILL to the group (sent by the
// supervisor on SIGUSR1), killGrace apart; it answers with the ended job
// (Kept) while its window is there, then the window goes, then "stopped".
func (j *job) stop(w io.Writer) error {
	pid := j.s.cfg.PanePID
	done := j.hasEnded()
	var how string
	switch {
	case done:
		how = "it had ended already"
	case j.interruptWith(func() { j.s.typeKeys([]byte("\x03")) }):
		how = "Ctrl-C (SIGINT) stopped it"
	case j.interruptWith(func() { j.s.typeKeys([]byte("\x1c")) }):
		how = "it ignored Ctrl-C; Ctrl-\\ (SIGQUIT) stopped it"
	case j.interruptWith(func() { syscall.Kill(pid, syscall.SIGUSR1) }):
		how = "it ignored Ctrl-C and Ctrl-\\; SIGKILL to its process group stopped it"
	default:
		syscall.Kill(pid, syscall.SIGKILL)
		how = "it outlived SIGKILL to its process group; its window's process was killed"
		j.s.mu.Lock()
		j.end(128 + int(syscall.SIGKILL))
		j.s.mu.Unlock()
	}
	j.s.mu.Lock()
	info := j.infoNow()
	info.StoppedBy, info.Pane, info.Waiters, info.FullScreen = how, "", 0, false
	b := appendKept(nil, info, j.out, j.err)
	j.s.mu.Unlock()
	_, err := w.Write(b)
	j.killWindow()
	if err == nil {
		send(w, "stopped")
	}
	return errLast
}

func (j *job) interruptWith(do func()) bool {
	do()
	return closedWithin(j.endedC, killGrace)
}

// closeWindow closes an ended job's window (a new job takes its name).
func (j *job) closeWindow(w io.Writer) error {
	if !j.hasEnded() {
		return errors.New("the job is running")
	}
	if err := j.killWindow(); err != nil {
		return err
	}
	send(w, "ok")
	return errLast
}

// killWindow closes the job's window and waits a little for its stream to end.
func (j *job) killWindow() error {
	if _, err := tmux.Run("kill-pane", "-t", j.s.cfg.PaneID); err != nil && !tmux.IsMissingSession(err) {
		return err
	}
	closedWithin(j.s.paneGone, 2*time.Second)
	return nil
}
