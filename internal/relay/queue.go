package relay

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/platform"
)

// The queue of concurrent calls speaks for itself: a client whose turn
// comes declares what it runs ("call HEX\n", the agent's command as typed,
// shortened), and a client that has to wait is told at once, before its
// greeting, that it is queued, how many calls are ahead of it, and what
// holds the pane since when:
//
//	queued AHEAD SINCE CALL
//
// SINCE is the holder's turn's start in Unix milliseconds; CALL its
// declaration in hex, "-" while it has declared nothing. The queued
// clients hear it again whenever the holder declares, so a call that
// moved up the queue learns what holds the pane now.

const queuedPrefix = "queued "

// maxCall bounds a declared call, in bytes.
const maxCall = 512

// holder is what the current client runs, and since when it holds the pane.
type holder struct {
	call  string
	since time.Time
}

// Queued is what a waiting client hears about the pane's holder.
type Queued struct {
	// Ahead counts the calls before ours: the holder and those queued
	// before us.
	Ahead int
	Since time.Time
	// Call is what the holder runs, as the agent typed it; "" while unknown.
	Call string
}

// dropHungUp forgets the clients that have hung up and whose watch has
// not noticed yet: a call that comes right after the previous one ended
// (the agent's next command) must not be queued behind it, nor told that
// it waits. Call with r.mu held.
func (r *relay) dropHungUp() {
	for _, c := range append([]conn{r.current}, r.queue...) {
		if c != nil && platform.PeerHungUp(c) {
			r.drop(c)
		}
	}
}

// declare records what the current client runs; any other client's
// declaration breaks the protocol. The queued clients are told.
func (r *relay) declare(c conn, hexCall string) bool {
	call, err := hex.DecodeString(hexCall)
	if err != nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.current != c {
		return false
	}
	r.holder.call = string(call[:min(len(call), maxCall)])
	for i, q := range r.queue {
		r.tellQueued(q, i+1)
	}
	return true
}

// tellQueued tells c that it waits behind ahead calls. Call with r.mu
// held. A client that cannot take the line is left to its hang-up.
func (r *relay) tellQueued(c conn, ahead int) {
	call := "-"
	if r.holder.call != "" {
		call = hex.EncodeToString([]byte(r.holder.call))
	}
	c.SetWriteDeadline(time.Now().Add(relayWriteTimeout))
	fmt.Fprintf(c, "%s%d %d %s\n", queuedPrefix, ahead, r.holder.since.UnixMilli(), call)
}

func parseQueued(line string) (Queued, bool) {
	f := strings.Fields(strings.TrimPrefix(line, queuedPrefix))
	if len(f) != 3 {
		return Queued{}, false
	}
	ahead, err1 := strconv.Atoi(f[0])
	since, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return Queued{}, false
	}
	q := Queued{Ahead: ahead, Since: time.UnixMilli(since)}
	if f[2] != "-" {
		call, err := hex.DecodeString(f[2])
		if err != nil {
			return Queued{}, false
		}
		q.Call = string(call)
	}
	return q, true
}

// Declare tells the relay what we run, once it is our turn, for the calls
// that queue behind us.
func (rc *Client) Declare(call string) error {
	_, err := fmt.Fprintf(rc.conn, "call %x\n", call[:min(len(call), maxCall)])
	return err
}
