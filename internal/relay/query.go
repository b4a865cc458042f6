package relay

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// Queries (ptysend --status, --history, --output) read what the relay
// knows and must not wait while a call holds the pane, so they have a
// socket of their own beside the queue's: QuerySocket. A client sends one
// request line and gets one answer (wire.go), then the relay hangs up:
//
//	status        the pane, what its shell last said, the call that holds the pane, the running command
//	history N     the last N commands of the history
//	output ID     a command's output (ID 0: the human's last command):
//	              the object says its size, and that many bytes follow
//
// Every answer carries the protocol version, as the queue's greeting
// does. A relay without a query socket is of an older version.

// QuerySocket is the query socket of the relay whose queue listens on
// socketPath.
func QuerySocket(socketPath string) string {
	return strings.TrimSuffix(socketPath, ".sock") + ".query.sock"
}

// protocolVersion is the version in relayHello.
const protocolVersion = 7

// queryTimeout bounds how long the relay waits for a query's request
// and for the client to take the answer.
const queryTimeout = 5 * time.Second

// Answer is the relay's answer to a query.
type Answer struct {
	Version int
	Error   string

	// status
	PaneID   string
	PanePID  int
	Shell    string // a markers.Snapshot
	Call     *Call
	Running  *Entry
	ShellDir string // the directory at the shell's last FINISHED event

	// history
	Entries []Entry

	// output
	Entry *Entry
	Size  int
}

// Call is the ptysend call that holds the pane.
type Call struct {
	Call   string    `json:"call"` // as the agent typed it, shortened (bridge.Turn); "" while undeclared
	Since  time.Time `json:"since"`
	Queued int       `json:"queued"` // calls waiting behind it
}

// Snapshot is the shell's state in a status answer.
func (a *Answer) Snapshot() markers.Snapshot {
	s, err := markers.ParseSnapshot(a.Shell)
	if err != nil {
		return markers.Snapshot{State: markers.StateUnknown}
	}
	return s
}

// listenQueries listens on the query socket. A relay that is starting in
// place of another (RespawnShell, a newer version) owns the queue's
// socket already, so it takes this one over whatever is there.
func listenQueries(path string) (*Listener, error) {
	os.Remove(path)
	return Listen(path)
}

func (r *relay) queryLoop(ln *Listener) {
	AcceptFromUs(ln, func(c conn) { go r.answer(c) })
}

// answer serves one query.
func (r *relay) answer(c conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(queryTimeout))
	line, err := bufio.NewReaderSize(c, 256).ReadString('\n')
	if err != nil {
		return
	}
	a, body := r.query(strings.Fields(line))
	a.Version = protocolVersion
	c.Write(append(appendAnswer(nil, &a), body...))
}

// query computes the answer to a request.
func (r *relay) query(req []string) (Answer, []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	number := func() (int, bool) {
		if len(req) != 2 {
			return 0, false
		}
		n, err := strconv.Atoi(req[1])
		return n, err == nil && n >= 0
	}
	switch {
	case len(req) == 1 && req[0] == "status":
		r.dropHungUp()
		a := Answer{PaneID: r.paneID, PanePID: r.panePID, Shell: r.tracker.Snapshot().String()}
		if r.current != nil {
			a.Call = &Call{Call: r.holder.call, Since: r.holder.since, Queued: len(r.queue)}
		}
		if run := r.history.Running(); run != nil {
			e := run.entry(r.history.now())
			a.Running = &e
		}
		if sh := r.history.shells[r.tracker.Snapshot().PID]; sh != nil {
			a.ShellDir = sh.dir
		}
		return a, nil
	case len(req) == 2 && req[0] == "history":
		if n, ok := number(); ok {
			return Answer{Entries: r.history.Entries(n)}, nil
		}
	case len(req) == 2 && req[0] == "output":
		if id, ok := number(); ok {
			rec := r.history.Find(id)
			if rec == nil {
				return Answer{Error: unknownCommand(id)}, nil
			}
			e := rec.entry(r.history.now())
			body := rec.out.render()
			return Answer{Entry: &e, Size: len(body)}, body
		}
	}
	return Answer{Error: fmt.Sprintf("bad query %q", strings.Join(req, " "))}, nil
}

func unknownCommand(id int) string {
	if id == 0 {
		return "the history holds no command of the user's yet (a shell's commands are recorded from the first ptysend command in it on)"
	}
	return fmt.Sprintf("the history holds no command with id %d", id)
}

// ErrNoQueries means the relay has no query socket: none runs, or one of
// an older version.
var ErrNoQueries = errors.New("the relay takes no queries")

// Query asks the relay listening on socketPath (the queue's socket) one
// question. The bytes that follow the answer (an output's) are returned
// with it.
func Query(socketPath, request string) (*Answer, []byte, error) {
	c, err := platform.DialUnixBlocking(QuerySocket(socketPath), queryTimeout)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNoQueries, err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, request+"\n"); err != nil {
		return nil, nil, err
	}
	rd := bufio.NewReaderSize(c, 64*1024)
	a, err := readAnswer(rd)
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
		// It went away as we asked (it was dying): as if none listened.
		return nil, nil, fmt.Errorf("%w: it hung up: %v", ErrNoQueries, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading the relay's answer: %w", err)
	}
	if a.Version != protocolVersion {
		return a, nil, fmt.Errorf("%w: version %d", ErrVersion, a.Version)
	}
	var body []byte
	if a.Size > 0 {
		body = make([]byte, a.Size)
		if _, err := io.ReadFull(rd, body); err != nil {
			return nil, nil, fmt.Errorf("reading the output from the relay: %w", err)
		}
	}
	return a, body, nil
}

// paneDir is the working directory of a shell of the pane, from /proc:
// only for a process on the pane's own terminal (a pid that a shell
// behind ssh reports is no local process of ours).
func paneDir(panePID int) func(pid int) string {
	return func(pid int) string {
		if pid <= 0 || !platform.SameTerminal(pid, panePID) {
			return ""
		}
		dir, _ := platform.Cwd(pid)
		return dir
	}
}

// job records what the current client's call runs under its id ("job ID
// HEX"), for the history; any other client's breaks the protocol.
func (r *relay) job(c conn, req string) bool {
	idText, hexCommand, ok := strings.Cut(req, " ")
	command, err := hex.DecodeString(hexCommand)
	id := markers.ID(idText)
	if !ok || err != nil || !id.Valid() {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.current != c {
		return false
	}
	r.history.Job(id, string(command))
	return true
}

// maxJob bounds a declared command, in bytes.
const maxJob = 8 * 1024

// Job tells the relay, once it is our turn, what the wrapper with that
// id runs: the history records the agent's command by it.
func (rc *Client) Job(id markers.ID, command string) error {
	_, err := fmt.Fprintf(rc.conn, "job %s %x\n", id, command[:min(len(command), maxJob)])
	return err
}
