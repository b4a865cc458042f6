package session

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// The relay is started by tmux through pipe-pane, so its standard input is
// the raw output of the shared pane, lossless whatever the scrollback. It
// listens on a unix socket in the private runtime directory and hands the
// stream to one connected ptysend at a time; the others wait their turn in
// the order they connected, which makes the relay the lock that queues
// concurrent calls. When the pane dies, tmux closes the pipe, the relay
// closes every connection and removes its socket: a ptysend that is
// waiting for output learns at once that the bridge is gone.

// relayHello opens every served connection: the protocol version, the
// pane id, the pane's process id and what the pane's shell last said
// (a markers.Snapshot).
const relayHello = "ptybridge-relay 2"

// relayWriteTimeout drops a client that stops reading, so that one stuck
// caller cannot stall the pane (tmux buffers what the pipe does not take).
const relayWriteTimeout = 30 * time.Second

type relay struct {
	mu      sync.Mutex
	current net.Conn
	queue   []net.Conn
	hello   string
	tracker markers.Tracker
}

// RunRelay serves the stream read from in on socketPath until in ends.
func RunRelay(socketPath, paneID string, panePID int, in io.Reader) error {
	ln, err := listenRelay(socketPath)
	if err != nil {
		return err
	}
	mine, _ := os.Stat(socketPath)
	r := &relay{hello: fmt.Sprintf("%s %s %d", relayHello, paneID, panePID)}
	go r.acceptLoop(ln)
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
	ln.Close()
	if now, err := os.Stat(socketPath); err == nil && mine != nil && os.SameFile(mine, now) {
		os.Remove(socketPath)
	}
	r.closeAll()
	return nil
}

// listenRelay listens on path, replacing a stale socket left by a relay
// that died, but never a live one.
func listenRelay(path string) (net.Listener, error) {
	if c, err := net.Dial("unix", path); err == nil {
		c.Close()
		return nil, fmt.Errorf("a relay is already listening on %s", path)
	}
	os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	return ln, nil
}

func (r *relay) acceptLoop(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		if !sameUser(c) {
			c.Close()
			continue
		}
		r.mu.Lock()
		r.queue = append(r.queue, c)
		r.promote()
		r.mu.Unlock()
		go r.watch(c)
	}
}

// sameUser checks the peer's credentials: the directory is private
// already, this is a second line of defence.
func sameUser(c net.Conn) bool {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	var cred *unix.Ucred
	var credErr error
	raw.Control(func(fd uintptr) {
		cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	})
	return credErr == nil && int(cred.Uid) == os.Geteuid()
}

// watch waits for the client to hang up (clients never write), then gives
// the stream to the next one in the queue.
func (r *relay) watch(c net.Conn) {
	io.Copy(io.Discard, c)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.drop(c)
}

// promote makes the first queued client current when nobody is. Call with
// r.mu held.
func (r *relay) promote() {
	for r.current == nil && len(r.queue) > 0 {
		c := r.queue[0]
		r.queue = r.queue[1:]
		c.SetWriteDeadline(time.Now().Add(relayWriteTimeout))
		if _, err := fmt.Fprintf(c, "%s %s\n", r.hello, r.tracker.Snapshot()); err != nil {
			c.Close()
			continue
		}
		r.current = c
	}
}

// drop forgets c wherever it is. Call with r.mu held.
func (r *relay) drop(c net.Conn) {
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
	if r.current == nil {
		return
	}
	r.current.SetWriteDeadline(time.Now().Add(relayWriteTimeout))
	if _, err := r.current.Write(b); err != nil {
		r.drop(r.current)
	}
}

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

// relayClient is ptysend's end of a relay connection.
type relayClient struct {
	conn    net.Conn
	r       *bufio.Reader
	PaneID  string
	PanePID int
	// Shell is what the pane's shell last said when our turn came.
	Shell markers.Snapshot
}

// errNoRelay means nothing listens on the relay socket.
var errNoRelay = errors.New("no relay is listening")

// dialRelay connects to the relay; the turn to use the pane comes later,
// with the hello (see waitTurn).
func dialRelay(path string) (*relayClient, error) {
	c, err := net.Dial("unix", path)
	if err != nil {
		return nil, fmt.Errorf("%w on %s: %v", errNoRelay, path, err)
	}
	return &relayClient{conn: c, r: bufio.NewReaderSize(c, 64*1024)}, nil
}

// waitTurn blocks until the relay serves us (earlier callers are done), or
// the deadline passes.
func (rc *relayClient) waitTurn(deadline time.Time) error {
	rc.conn.SetReadDeadline(deadline)
	defer rc.conn.SetReadDeadline(time.Time{})
	line, err := rc.r.ReadString('\n')
	if err != nil {
		return err
	}
	fields := strings.Fields(line)
	if len(fields) != 5 || fields[0]+" "+fields[1] != relayHello {
		return fmt.Errorf("unexpected greeting from the relay: %q (a relay of another version? ask the user to restart ptybridge)", line)
	}
	rc.PaneID = fields[2]
	if rc.PanePID, err = strconv.Atoi(fields[3]); err != nil {
		return err
	}
	rc.Shell, err = markers.ParseSnapshot(fields[4])
	return err
}

func (rc *relayClient) Read(p []byte) (int, error) { return rc.r.Read(p) }

func (rc *relayClient) Close() error { return rc.conn.Close() }
