// Package relay is the process that tmux's pipe-pane connects to the
// shared pane, and the protocol with which ptysend talks to it: the
// relay streams the pane's raw output to one connected client at a time
// (that is the queue of concurrent calls), types that client's keys into
// the pane, and follows the shell's hook events to say, in its greeting,
// what the shell last did. Its sockets are internal/platform's unix
// sockets, without package net. It must not interpret a command's output;
// that is the markers' and the callers' business.
package relay

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/tmux"
)

// The relay is started by tmux through pipe-pane, so its standard input is
// the raw output of the shared pane, lossless whatever the scrollback. It
// listens on a unix socket in the private runtime directory and hands the
// stream to one connected ptysend at a time; the others wait their turn in
// the order they connected, which makes the relay the lock that queues
// concurrent calls. When the pane dies, tmux closes the pipe, the relay
// closes every connection and removes its socket: a ptysend that is
// waiting for output learns at once that the bridge is gone.
//
// Its standard output is the pane's input (pipe-pane -I): the client whose
// turn it is sends "type HEX\n" and the relay types those bytes into the
// pane, as send-keys would. This is the hot path of every call: typing
// through the relay costs a write on an open socket, where a tmux
// send-keys process costs ~4-5 ms of a ~10 ms call (scripts/bench).

// relayHello opens every served connection: the protocol version, the
// pane id, the pane's process id, what the pane's shell last said (a
// markers.Snapshot) and where the client's stream starts (a StreamView,
// for REPL evaluations). A relay of another version (an older ptybridge's) is
// replaced by ptysend, as a dead one is. Before it, a client that has to
// wait gets "queued" lines (queue.go). Since version 6 its tracker also
// takes a frame of a command's stderr for output, not for the human's
// typing; version 7 added the query socket (query.go) and "job" requests.
const relayHello = "ptybridge-relay 7"

// relayMaxRequest bounds a client's request line.
const relayMaxRequest = 64 * 1024

// relayWriteTimeout drops a client that stops reading, so that one stuck
// caller cannot stall the pane (tmux buffers what the pipe does not take).
const relayWriteTimeout = 30 * time.Second

type relay struct {
	inputEnded chan struct{} // closed when the pane's output ends

	mu      sync.Mutex
	current conn
	queue   []conn
	holder  holder // what current runs, since when (queue.go)
	hello   string
	tracker markers.Tracker
	// history is the commands run at the shell's prompt (history.go),
	// fed by the tracker.
	history *history
	paneID  string
	panePID int
	// instance and streamed (bytes forwarded so far) make the StreamView
	// of the greeting.
	instance string
	streamed int64

	typing sync.Mutex // held while typing into the pane
	keys   io.Writer  // the pane's input
}

// Run serves the stream read from in on socketPath until in ends.
// What clients type goes to standard output, which pipe-pane -I connects
// to the pane's input: nothing else may ever be written there.
func Run(socketPath, paneID string, panePID int, in io.Reader) error {
	return run(socketPath, paneID, panePID, in, os.Stdout, func(r *relay) {
		writePaneFile(socketPath, paneID, panePID)
		go r.closePaneWhenTheHumanExits(paneID, panePID)
	})
}

func run(socketPath, paneID string, panePID int, in io.Reader, keys io.Writer, started func(*relay)) error {
	// The query socket listens before the queue's: whoever sees the
	// queue's socket alive (WaitFor) finds the query socket alive too.
	if Alive(socketPath) {
		return fmt.Errorf("a relay is already listening on %s", socketPath)
	}
	queryPath := QuerySocket(socketPath)
	qln, err := listenQueries(queryPath)
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	queryMine, _ := os.Stat(queryPath)
	ln, err := listenRelay(socketPath)
	if err != nil {
		qln.Close()
		removeIfMine(queryPath, queryMine)
		return err
	}
	mine, _ := os.Stat(socketPath)
	r := &relay{hello: fmt.Sprintf("%s %s %d", relayHello, paneID, panePID), keys: keys, instance: newInstance(),
		inputEnded: make(chan struct{}), history: newHistory(), paneID: paneID, panePID: panePID}
	r.history.cwd = paneDir(panePID)
	r.history.holderCall = func() string { return r.holder.call }
	r.tracker.Sink = r.history
	go r.acceptLoop(ln)
	go r.queryLoop(qln)
	if started != nil {
		started(r)
	}
	buf := make([]byte, 64*1024)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			r.forward(buf[:n])
		}
		if err != nil {
			break
		}
	}
	close(r.inputEnded)
	ln.Close()
	qln.Close()
	removeIfMine(socketPath, mine)
	removeIfMine(queryPath, queryMine)
	r.closeAll()
	return nil
}

// removeIfMine removes the socket file at path if it is still the one we
// made (mine), not a newer relay's.
func removeIfMine(path string, mine os.FileInfo) {
	if now, err := os.Stat(path); err == nil && mine != nil && os.SameFile(mine, now) {
		os.Remove(path)
	}
}

// listenRelay listens on path, replacing a stale socket left by a relay
// that died, but never a live one.
func listenRelay(path string) (*Listener, error) {
	if c, err := DialSocket(path); err == nil {
		c.Close()
		return nil, fmt.Errorf("a relay is already listening on %s", path)
	}
	os.Remove(path)
	ln, err := Listen(path)
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	return ln, nil
}

func (r *relay) acceptLoop(ln *Listener) { AcceptFromUs(ln, r.enqueue) }

// enqueue puts a new client in the queue for the pane, telling it what
// it waits behind if it must wait.
func (r *relay) enqueue(c conn) {
	r.mu.Lock()
	r.dropHungUp()
	r.queue = append(r.queue, c)
	r.promote()
	if r.current != c {
		r.tellQueued(c, len(r.queue))
	}
	r.mu.Unlock()
	go r.watch(c)
}

// AcceptFromUs accepts connections until ln is closed, and hands each
// one from a process of our own user to handle; others are hung up on.
func AcceptFromUs(ln *Listener, handle func(c *os.File)) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if !sameUser(c) {
			c.Close()
			continue
		}
		handle(c)
	}
}

// sameUser checks the peer's credentials: the directory is private
// already, this is a second line of defence.
func sameUser(c conn) bool {
	uid, err := platform.PeerUID(c)
	return err == nil && uid == os.Geteuid()
}

// watch serves the client's requests until it hangs up, then gives the
// stream to the next one in the queue. A client that breaks the protocol
// (a request before its turn, a malformed one) is hung up on.
func (r *relay) watch(c conn) {
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 0, 512), relayMaxRequest)
	for sc.Scan() && r.serve(c, sc.Text()) {
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.drop(c)
}

// serve runs one request of c; false means hang up.
func (r *relay) serve(c conn, req string) bool {
	if hexCall, ok := strings.CutPrefix(req, "call "); ok {
		return r.declare(c, hexCall)
	}
	if job, ok := strings.CutPrefix(req, "job "); ok {
		return r.job(c, job)
	}
	hexKeys, ok := strings.CutPrefix(req, "type ")
	if !ok {
		return false
	}
	keys, err := hex.DecodeString(hexKeys)
	if err != nil {
		return false
	}
	r.typing.Lock()
	defer r.typing.Unlock()
	r.mu.Lock()
	current := r.current == c
	r.mu.Unlock()
	if !current {
		return false
	}
	// The history hears of the keys before their echo can come back.
	r.mu.Lock()
	r.history.Typed(keys)
	r.mu.Unlock()
	_, err = r.keys.Write(keys)
	return err == nil
}

// promote makes the first queued client current when nobody is. Call with
// r.mu held.
func (r *relay) promote() {
	for r.current == nil && len(r.queue) > 0 {
		c := r.queue[0]
		r.queue = r.queue[1:]
		c.SetWriteDeadline(time.Now().Add(relayWriteTimeout))
		view := StreamView{Relay: r.instance, Offset: r.streamed, Paste: r.tracker.Paste()}
		if _, err := fmt.Fprintf(c, "%s %s %s\n", r.hello, r.tracker.Snapshot(), view); err != nil {
			c.Close()
			continue
		}
		r.current = c
		r.holder = holder{since: time.Now()}
	}
}

// drop forgets c wherever it is. Call with r.mu held.
func (r *relay) drop(c conn) {
	c.Close()
	if r.current == c {
		r.current = nil
		r.promote()
		return
	}
	for i, q := range r.queue {
		if q == c {
			r.queue = append(r.queue[:i], r.queue[i+1:]...)
			return
		}
	}
}

func (r *relay) forward(b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tracker.Write(b)
	r.streamed += int64(len(b))
	if r.current == nil {
		return
	}
	r.current.SetWriteDeadline(time.Now().Add(relayWriteTimeout))
	if _, err := r.current.Write(b); err != nil {
		r.drop(r.current)
	}
}

// The shared pane has remain-on-exit on, so that a command of the agent's
// that ends the shell (exit, exec, a failure under set -e) cannot destroy
// the human's session: ptysend starts a new shell in the pane. When the
// shell ends while no call holds the pane, the human ended it: the pane is
// closed, as it would be without remain-on-exit, and the terminal with it.
func (r *relay) closePaneWhenTheHumanExits(paneID string, panePID int) {
	ctx, stopWatching := context.WithCancel(context.Background())
	defer stopWatching()
	exited := platform.WatchExit(ctx, panePID)
	if exited == nil {
		return
	}
	<-exited
	// When the whole pane goes (the session ended, the server was
	// killed), its pipe closes too: nothing is left to close, and a tmux
	// call would only find the server gone.
	select {
	case <-r.inputEnded:
		return
	case <-time.After(paneGoneGrace):
	}
	r.mu.Lock()
	busy := r.current != nil
	r.mu.Unlock()
	if !busy {
		tmux.Run("kill-pane", "-t", paneID)
	}
}

// paneGoneGrace is how long the relay waits, after the pane's shell ended,
// for the pane's pipe to close as well.
const paneGoneGrace = 100 * time.Millisecond

func (r *relay) closeAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.current != nil {
		r.current.Close()
	}
	for _, c := range r.queue {
		c.Close()
	}
	r.current, r.queue = nil, nil
}

// Client is ptysend's end of a relay connection.
type Client struct {
	conn    conn
	r       *bufio.Reader
	PaneID  string
	PanePID int
	// Shell is what the pane's shell last said when our turn came.
	Shell markers.Snapshot
	// Stream places our first byte in the pane's output.
	Stream StreamView
	// Path is the socket we are connected to.
	Path string
}

// ErrNoRelay means nothing listens on the relay socket.
var ErrNoRelay = errors.New("no relay is listening")

// ErrVersion means the relay speaks another version of the protocol.
var ErrVersion = errors.New("the relay speaks another protocol version")

// Dial connects to the relay; the turn to use the pane comes later,
// with the hello (see WaitTurn).
func Dial(path string) (*Client, error) {
	c, err := DialSocket(path)
	if err != nil {
		return nil, fmt.Errorf("%w on %s: %v", ErrNoRelay, path, err)
	}
	return &Client{conn: c, r: bufio.NewReaderSize(c, 64*1024), Path: path}, nil
}

// WaitTurn blocks until the relay serves us (earlier callers are done), or
// the deadline passes. While we wait behind another call, queued hears
// what holds the pane, at once and whenever that changes.
func (rc *Client) WaitTurn(deadline time.Time, queued func(Queued)) error {
	rc.conn.SetReadDeadline(deadline)
	defer rc.conn.SetReadDeadline(time.Time{})
	line, err := rc.r.ReadString('\n')
	for err == nil && strings.HasPrefix(line, queuedPrefix) {
		if q, ok := parseQueued(line); ok && queued != nil {
			queued(q)
		}
		line, err = rc.r.ReadString('\n')
	}
	if err != nil {
		return err
	}
	fields := strings.Fields(line)
	if len(fields) != 6 || fields[0]+" "+fields[1] != relayHello {
		return fmt.Errorf("%w: %q", ErrVersion, line)
	}
	rc.PaneID = fields[2]
	if rc.PanePID, err = strconv.Atoi(fields[3]); err != nil {
		return err
	}
	if rc.Shell, err = markers.ParseSnapshot(fields[4]); err != nil {
		return err
	}
	rc.Stream, err = parseStreamView(fields[5])
	return err
}

func (rc *Client) Read(p []byte) (int, error) { return rc.r.Read(p) }

// maxKeys bounds the keys of one request (hex doubles them; the relay
// takes requests of up to relayMaxRequest bytes).
const maxKeys = 16 * 1024

// Type has the relay type keys into the pane, once it is our turn, in
// requests of a size it takes.
func (rc *Client) Type(keys string) error {
	for len(keys) > 0 {
		n := min(len(keys), maxKeys)
		if _, err := fmt.Fprintf(rc.conn, "type %x\n", keys[:n]); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}

// SetReadDeadline bounds the next reads of the stream; zero: none.
func (rc *Client) SetReadDeadline(t time.Time) error { return rc.conn.SetReadDeadline(t) }

// Buffered is how much of the stream was read from the relay and not yet
// by us: zero means we are as far as the relay has sent.
func (rc *Client) Buffered() int { return rc.r.Buffered() }

func (rc *Client) Close() error { return rc.conn.Close() }

func Alive(path string) bool {
	c, err := DialSocket(path)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// WaitFor waits for a relay that tmux is starting. It polls, but only
// while a bridge is being set up, never on a command's path.
func WaitFor(path string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for !Alive(path) {
		if time.Now().After(deadline) {
			return &failure.Error{
				Msg:  "the output relay of the bridge did not start (socket " + path + ")",
				Hint: "check that " + os.Args[0] + " can run from inside tmux, then run ptybridge again",
			}
		}
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}
