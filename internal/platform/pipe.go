package platform

import (
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// A PipeReader reads a pipe and says how far the stream has reached: the bytes it took plus the
// bytes still waiting in the pipe, one sum that no read falls between. A reader that took bytes
// but has not handed them on yet must count, or whoever waits for "everything written so far"
// (the relay before it answers) stops short of them.
type PipeReader struct {
	f     *os.File // kept: a File closes its descriptor when collected
	raw   syscall.RawConn
	mu    sync.Mutex // held across each read(2) and its count
	taken int64
}

// NewPipeReader reads pipe f in the runtime's poller: a blocking descriptor (a standard input
// inherited from tmux) is made non-blocking, so that no read waits while it holds the count.
func NewPipeReader(f *os.File) (*PipeReader, error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var fd int
	var ferr error
	blocking := false
	if err := raw.Control(func(d uintptr) {
		fd = int(d)
		if flags, err := unix.FcntlInt(d, unix.F_GETFL, 0); err != nil || flags&unix.O_NONBLOCK == 0 {
			blocking, ferr = true, unix.SetNonblock(fd, true)
		}
	}); err != nil {
		return nil, err
	}
	if ferr != nil {
		return nil, ferr
	}
	if blocking { // a new File for the descriptor joins the poller; f stays, never read again
		f = os.NewFile(uintptr(fd), f.Name())
		if raw, err = f.SyscallConn(); err != nil {
			return nil, err
		}
	}
	return &PipeReader{f: f, raw: raw}, nil
}

// Read reads what the pipe holds, waiting in the poller while it is empty; io.EOF at its end.
func (p *PipeReader) Read(b []byte) (n int, err error) {
	rerr := p.raw.Read(func(fd uintptr) bool {
		p.mu.Lock()
		defer p.mu.Unlock()
		n, err = readFD(int(fd), b)
		p.taken += int64(n)
		return err != unix.EAGAIN
	})
	if rerr != nil {
		return 0, rerr
	}
	return n, err
}

// Reached is how many bytes the stream holds so far: read by Read, or waiting in the pipe.
func (p *PipeReader) Reached() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	unread := 0
	p.raw.Control(func(fd uintptr) { unread = unreadFD(int(fd)) })
	return p.taken + int64(unread)
}
