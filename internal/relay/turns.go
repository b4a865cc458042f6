package relay

import (
	"bufio"
	"os"
	"slices"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
)

// The queue of concurrent calls: a client asks for a turn ("turn CALL")
// and waits in order, hearing what holds the pane ("queued") at once and
// whenever that changes. Its turn come, it gets the hello, then the pane's
// stream, and may type. A request before its turn is a hang-up.

const maxCall = 512 // bytes of a declared call

// The queue's methods want s.mu held.
type turns struct {
	current *turnClient
	queue   []*turnClient
	holder  struct { // what the current client runs, and since when
		call  string
		since time.Time
	}
}

type turnClient struct {
	c       *os.File
	call    string
	ready   chan struct{} // closed when its turn comes
	greeted bool          // its hello went out: the stream goes to it
}

// write writes b to the client, or fails once it stopped reading.
func (tc *turnClient) write(b []byte) error {
	tc.c.SetWriteDeadline(time.Now().Add(writeTimeout))
	_, err := tc.c.Write(b)
	return err
}

// serveTurn queues c, greets it in its turn, and serves it till it hangs up.
func (s *server) serveTurn(c *os.File, r *bufio.Reader, call string) {
	tc := &turnClient{c: c, call: call[:min(len(call), maxCall)], ready: make(chan struct{})}
	s.mu.Lock()
	s.turns.dropHungUp()
	s.turns.queue = append(s.turns.queue, tc)
	s.turns.promote()
	if s.turns.current != tc {
		s.turns.tellQueued(tc, len(s.turns.queue))
	}
	s.mu.Unlock()

	requests := make(chan message)
	go func() {
		defer close(requests)
		for m, err := readMessage(r); err == nil; m, err = readMessage(r) {
			requests <- m
		}
	}()
	select {
	case <-tc.ready:
		s.mu.Lock()
		s.catchUp()
		s.greet(tc)
		s.mu.Unlock()
		for m := range requests {
			if !s.request(tc, m) {
				break
			}
		}
	case <-requests: // a hang-up, or a request before its turn
	}
	s.mu.Lock()
	s.turns.drop(tc)
	s.mu.Unlock()
	for range requests { // until the reader fails on the connection drop closed
	}
}

// greet sends the hello. Call with s.mu held.
func (s *server) greet(tc *turnClient) {
	s.scratch = appendMessage(s.scratch[:0], "hello", s.view()...)
	if tc.write(s.scratch) != nil {
		s.turns.drop(tc)
		return
	}
	tc.greeted = true
}

// request serves a request of the client whose turn it is; false hangs up.
func (s *server) request(tc *turnClient, m message) bool {
	switch m.verb() {
	case "type":
		keys := []byte(m.text(1))
		if m.err != nil {
			return false
		}
		s.mu.Lock()
		if s.history != nil {
			s.history.Typed(keys)
		}
		s.mu.Unlock()
		return s.typeKeys(keys) == nil
	case "type-if":
		offset, keys := m.int64(1), []byte(m.text(2))
		return m.err == nil && s.typeIf(tc, offset, keys)
	case "runs":
		id, command := markers.ID(m.text(1)), m.text(2)
		if m.err != nil || !id.Valid() {
			return false
		}
		s.mu.Lock()
		if s.history != nil {
			s.history.Runs(id, command)
		}
		s.mu.Unlock()
		return true
	}
	return false
}

// typeIf types keys only if the stream is still at offset, where the
// client decided, and the human has typed nothing the shell has not read.
// It answers "typed", or "moved" with where the stream is once caught up.
func (s *server) typeIf(tc *turnClient, offset int64, keys []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.catchUp()
	if s.streamed != offset || platform.TypedAhead(s.cfg.PanePID) {
		s.scratch = appendMessage(s.scratch[:0], "moved", s.streamed)
	} else {
		if s.history != nil {
			s.history.Typed(keys)
		}
		if s.typeKeys(keys) != nil {
			return false
		}
		s.scratch = appendMessage(s.scratch[:0], "typed")
	}
	return tc.write(s.scratch) == nil
}

func (t *turns) forward(s *server, b []byte) {
	if tc := t.current; tc != nil && tc.greeted {
		s.scratch = appendData(s.scratch[:0], "s", s.streamed-int64(len(b)), b)
		if tc.write(s.scratch) != nil {
			t.drop(tc)
		}
	}
}

// promote makes the first queued client current if none is, and tells the rest.
func (t *turns) promote() {
	if t.current != nil || len(t.queue) == 0 {
		return
	}
	t.current, t.queue = t.queue[0], t.queue[1:]
	t.holder.call, t.holder.since = t.current.call, time.Now()
	close(t.current.ready)
	for i, q := range t.queue {
		t.tellQueued(q, i+1)
	}
}

func (t *turns) drop(tc *turnClient) {
	tc.c.Close()
	if t.current == tc {
		t.current = nil
		t.promote()
		return
	}
	if i := slices.Index(t.queue, tc); i >= 0 {
		t.queue = slices.Delete(t.queue, i, i+1)
	}
}

// dropHungUp forgets the clients that hung up before their requests'
// reader noticed: the agent's next call must not wait behind its last.
func (t *turns) dropHungUp() {
	for _, tc := range append([]*turnClient{t.current}, t.queue...) {
		if tc != nil && platform.PeerHungUp(tc.c) {
			t.drop(tc)
		}
	}
}

// tellQueued tells tc that it waits behind ahead calls; one that cannot
// take the line is left to its hang-up.
func (t *turns) tellQueued(tc *turnClient, ahead int) {
	tc.write(appendMessage(nil, "queued", ahead, t.holder.since, t.holder.call))
}

func (t *turns) closeAll() {
	for _, tc := range append([]*turnClient{t.current}, t.queue...) {
		if tc != nil {
			tc.c.Close()
		}
	}
	t.current, t.queue = nil, nil
}
