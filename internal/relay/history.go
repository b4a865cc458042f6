package relay

import (
	"bytes"
	"cmp"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/markers"
)

// The shared pane's relay keeps the history of the commands run at the
// shell's prompt, the human's and the agent's, with what each printed
// (ptysend --history, --output). A human's runs from its COMMAND event (in
// dash, which has none, from the Enter after PROMPT) to FINISHED; an
// agent's from the wrapper's START to END, its text what the call declared
// ("runs"), not the line that sourced the wrapper.

const (
	historyEntries = 100
	maxTyped       = 4096 // the echo kept of a line typed at a prompt
	maxJobs        = 16   // declared commands kept for calls not started yet
	maxShells      = 64   // shells whose state is kept
)

// Who ran a command.
const (
	ByUser  = "user"
	ByAgent = "agent"
)

// record is a command as the history keeps it; out has its output.
type record struct {
	Entry                // ShellPID 0: its shell is unknown
	call      markers.ID // an agent's
	fromEnter bool       // started by the Enter of a shell without COMMAND events
	out       *Buffer    // what the terminal showed of it, its "\r\n" undone
}

type shellSeen struct {
	commandEvents bool // it prints COMMAND events (dash does not)
	atPrompt      bool
	typed         []byte // the echo since its PROMPT event
	dir           string // its directory at its last FINISHED event
	seen          int    // when it last spoke, in events
}

type history struct {
	now func() time.Time
	cwd func(pid int) string // for the shells whose events do not carry it; "" when unknown

	records     []*record // oldest first
	open        []*record // running, innermost last
	nextID      int
	shells      map[int]*shellSeen
	events      int
	current     int                   // the shell of the last PROMPT or COMMAND event
	lastEnded   *record               // the agent's command END closed: its shell's FINISHED tells its directory
	jobs        map[markers.ID]string // declared commands ("runs")
	jobOrder    []markers.ID
	typed       []byte        // the last keys a call typed
	typedBefore int           // the id of the first record begun after them
	holderCall  func() string // what the holder runs: an older ptysend's call declares none
	crlf        crlfUndoer
}

func newHistory(cwd func(pid int) string, holderCall func() string) *history {
	return &history{now: time.Now, cwd: cwd, holderCall: holderCall, nextID: 1, shells: map[int]*shellSeen{}, jobs: map[markers.ID]string{}}
}

func (h *history) Runs(id markers.ID, command string) {
	if _, ok := h.jobs[id]; !ok {
		h.jobOrder = append(h.jobOrder, id)
	}
	h.jobs[id] = command
	for len(h.jobOrder) > maxJobs {
		delete(h.jobs, h.jobOrder[0])
		h.jobOrder = h.jobOrder[1:]
	}
}

// Bytes is output of the pane: it goes to the innermost running command,
// and, at a shell's prompt, it is the echo of what the human types.
func (h *history) Bytes(b []byte) { h.bytes(h.crlf.undo(b)) }

func (h *history) bytes(b []byte) {
	sh := h.shells[h.current]
	if sh != nil && sh.atPrompt && !slices.ContainsFunc(h.open, func(r *record) bool { return r.ShellPID == h.current }) {
		n := min(len(b), maxTyped-len(sh.typed))
		i := bytes.IndexByte(b, '\n')
		if !sh.commandEvents && i >= 0 {
			// A shell without COMMAND events (dash) runs the line at Enter.
			sh.typed = append(sh.typed, b[:min(i, n)]...)
			h.writeOut(b[:i+1])
			line := typedLine(sh.typed)
			sh.atPrompt, sh.typed = false, sh.typed[:0]
			if line != "" {
				h.begin(ByUser, line, h.current).fromEnter = true
			}
			h.bytes(b[i+1:])
			return
		}
		sh.typed = append(sh.typed, b[:n]...)
	}
	h.writeOut(b)
}

func (h *history) writeOut(b []byte) {
	if len(h.open) > 0 && len(b) > 0 {
		h.open[len(h.open)-1].out.Write(b)
	}
}

func (h *history) Event(e markers.Event) {
	if h.crlf.held { // a "\r" that no "\n" followed
		h.crlf.held = false
		h.writeOut([]byte("\r"))
	}
	h.events++
	switch e.Kind {
	case 'P':
		sh := h.shell(e.PID)
		// A command that ended without FINISHED (older hooks, a shell
		// that was killed): its end is known, its status is not.
		h.closeFrom(h.lastOpenOf(e.PID), nil, "")
		sh.atPrompt, sh.typed = true, sh.typed[:0]
		h.current = e.PID
	case 'C':
		sh := h.shell(e.PID)
		sh.commandEvents = true
		if r := h.lastOpenOf(e.PID); r != nil && r.fromEnter && r.call == "" {
			// Its Enter came first: it is this command, whose output
			// starts now (what came between was the line editor's).
			r.fromEnter, r.out = false, NewBuffer(HistoryBound, HistoryHead)
			r.Command = cmp.Or(e.Line, r.Command)
		} else {
			h.closeFrom(r, nil, "")
			h.begin(ByUser, cmp.Or(e.Line, typedLine(sh.typed)), e.PID)
		}
		sh.atPrompt, sh.typed = false, sh.typed[:0]
		h.current = e.PID
	case 'F':
		sh := h.shell(e.PID)
		// Hooks that give the directory (bash, zsh, fish; not dash) give
		// COMMAND events too: known before the human's first command.
		sh.commandEvents = sh.commandEvents || e.Dir != ""
		sh.dir = e.Dir
		if sh.dir == "" {
			sh.dir = h.cwd(e.PID)
		}
		if r := h.lastOpenOf(e.PID); r != nil {
			if e.Line != "" && r.Who == ByUser {
				r.Command = e.Line
			}
			h.closeFrom(r, &e.Status, sh.dir)
		} else if r := h.lastEnded; r != nil && (r.ShellPID == e.PID || r.ShellPID == 0) {
			r.ShellPID, r.Dir = e.PID, cmp.Or(r.Dir, sh.dir)
		}
		h.lastEnded = nil
	case 'S':
		command := cmp.Or(h.jobs[e.ID], h.holderCall())
		if r := h.lastOpenOf(h.current); r != nil && r == h.open[len(h.open)-1] && h.sourcedBy(r, e.ID) {
			// The line that sourced the wrapper: the agent's command.
			r.Who, r.call, r.fromEnter = ByAgent, e.ID, false
			r.Command = cmp.Or(command, r.Command)
			r.out = NewBuffer(HistoryBound, HistoryHead)
		} else {
			// In a shell not known yet: one without hooks.
			h.begin(ByAgent, cmp.Or(command, "(a command of ptysend's)"), 0).call = e.ID
		}
	case 'E':
		for i := len(h.open) - 1; i >= 0; i-- {
			if r := h.open[i]; r.call == e.ID {
				h.closeFrom(r, &e.Status, h.cwd(r.ShellPID))
				h.lastEnded = r
				break
			}
		}
		delete(h.jobs, e.ID)
	}
	if len(h.shells) > maxShells {
		h.forgetShells()
	}
}

// Typed notes the keys a call had the relay type into the pane: the line
// that sources the wrapper of a call names the call's id.
func (h *history) Typed(keys []byte) {
	h.typed = append(h.typed[:0], keys[:min(len(keys), maxTyped)]...)
	h.typedBefore = h.nextID
}

// sourcedBy reports whether r is the line the relay typed for call id.
func (h *history) sourcedBy(r *record, id markers.ID) bool {
	return r.Who == ByUser && r.call == "" &&
		(r.ID >= h.typedBefore && bytes.Contains(h.typed, []byte(id)) || strings.Contains(r.Command, string(id)))
}

// shell is the state of the shell pid, made on first sight.
func (h *history) shell(pid int) *shellSeen {
	sh := h.shells[pid]
	if sh == nil {
		sh = &shellSeen{}
		h.shells[pid] = sh
	}
	sh.seen = h.events
	return sh
}

// forgetShells keeps the shells that spoke last, and the current one.
func (h *history) forgetShells() {
	pids := slices.SortedFunc(maps.Keys(h.shells), func(a, b int) int { return h.shells[a].seen - h.shells[b].seen })
	pids = slices.DeleteFunc(pids, func(pid int) bool { return pid == h.current })
	for _, pid := range pids[:len(h.shells)-maxShells/2] {
		delete(h.shells, pid)
	}
}

func (h *history) begin(who, command string, pid int) *record {
	r := &record{Entry: Entry{ID: h.nextID, Who: who, Command: command, Start: h.now(), ShellPID: pid},
		out: NewBuffer(HistoryBound, HistoryHead)}
	h.nextID++
	if sh := h.shells[pid]; sh != nil {
		r.Dir = sh.dir
	}
	if r.Dir == "" && pid > 0 {
		r.Dir = h.cwd(pid)
	}
	h.records = append(h.records, r)
	if len(h.records) > historyEntries {
		h.records = h.records[len(h.records)-historyEntries:]
	}
	h.open = append(h.open, r)
	return r
}

// lastOpenOf is the innermost running command of the shell pid, else one
// whose shell is unknown (an agent's, in a shell without hooks yet), or nil.
func (h *history) lastOpenOf(pid int) *record {
	var unknown *record
	for i := len(h.open) - 1; i >= 0; i-- {
		r := h.open[i]
		if r.ShellPID == pid {
			return r
		}
		if r.ShellPID == 0 && unknown == nil {
			unknown = r
		}
	}
	return unknown
}

// closeFrom ends r with status (nil: unknown) and dir (kept when ""),
// and the commands started inside it (in a shell of r's), status unknown.
func (h *history) closeFrom(r *record, status *int, dir string) {
	i := slices.Index(h.open, r)
	if i < 0 {
		return
	}
	now := h.now()
	for _, o := range h.open[i:] {
		o.End = &now
	}
	if status != nil && r.Status == nil {
		r.Status = new(*status)
	}
	r.Dir = cmp.Or(r.Dir, dir) // where it started; where it ended only when that is unknown
	h.open = h.open[:i]
}

// typedLine is the command line the terminal echoed: its lines with text, trimmed.
func typedLine(echo []byte) string {
	var lines []string
	for _, l := range strings.Split(cleantext.String(string(echo)), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

func (r *record) entry(now time.Time) Entry {
	e := r.Entry
	e.Running, e.OutputBytes, e.OutputLeftOut = r.End == nil, r.out.Total(), r.out.Dropped()
	if r.End != nil {
		now = *r.End
	}
	e.DurationMS = now.Sub(r.Start).Milliseconds()
	return e
}

// Entries is the last n commands, oldest first.
func (h *history) Entries(n int) []Entry {
	rs := h.records[max(0, len(h.records)-n):]
	now := h.now()
	es := make([]Entry, len(rs))
	for i, r := range rs {
		es[i] = r.entry(now)
	}
	return es
}

// Find is the command with that id; id 0 means the human's last one.
func (h *history) Find(id int) *record {
	for i := len(h.records) - 1; i >= 0; i-- {
		if r := h.records[i]; r.ID == id || id == 0 && r.Who == ByUser {
			return r
		}
	}
	return nil
}
