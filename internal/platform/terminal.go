package platform

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// termMode reads the mode of tty; ok is false for no terminal.
func termMode(tty *os.File) (canonical, echo, onlcr, ok bool) {
	if tty == nil {
		return
	}
	t, err := unix.IoctlGetTermios(int(tty.Fd()), getTermios)
	if err != nil {
		return
	}
	canonical, echo = t.Lflag&unix.ICANON != 0, t.Lflag&unix.ECHO != 0
	return canonical, echo, t.Oflag&unix.OPOST != 0 && t.Oflag&unix.ONLCR != 0, true
}

// SetForegroundGroup makes pgid the foreground group of our terminal tty.
func SetForegroundGroup(tty *os.File, pgid int) error {
	return unix.IoctlSetPointerInt(int(tty.Fd()), unix.TIOCSPGRP, pgid)
}

// OpenTTY opens a terminal to read its mode, never as our controlling terminal; nil if it cannot.
func OpenTTY(path string) *os.File {
	f, _ := openUnpolled(path, unix.O_RDONLY)
	return f
}

// OpenTTYToWrite is OpenTTY to write; writes wait while the human holds output (Ctrl-S).
func OpenTTYToWrite(path string) (*os.File, error) {
	return openUnpolled(path, unix.O_WRONLY)
}

// openUnpolled opens without waiting and out of the poller, which would wake us at each byte shown.
func openUnpolled(path string, flags int) (*os.File, error) {
	fd, err := unix.Open(path, flags|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	unix.SetNonblock(fd, false)
	return os.NewFile(uintptr(fd), path), nil
}

// OpenTTYToWriteNoWait is OpenTTYToWrite, failing rather than waiting.
func OpenTTYToWriteNoWait(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
}

// Columns is the width of the terminal at path, 0 when unknown.
func Columns(path string) int {
	f, err := openUnpolled(path, unix.O_RDONLY)
	if err != nil {
		return 0
	}
	defer f.Close()
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0
	}
	return int(ws.Col)
}

// AskTerminal writes query to the terminal at path and takes what its input holds until done says
// that the answer came, or limit passed: read without line editing or echo, so an answer without a
// line break is read, and no answer shows. Call it only while no program reads the terminal. What
// it took is gone from the input: giveBack types back what must stay (through the terminal, as
// keys) and says how many bytes; the mode is restored once they are in the input again, so that
// they are not echoed twice and are there before anything reads the terminal.
func AskTerminal(path, query string, done func([]byte) bool, limit time.Duration, giveBack func([]byte) int) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	mode, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return nil, err
	}
	asking := *mode
	asking.Lflag &^= unix.ICANON | unix.ECHO
	asking.Cc[unix.VMIN], asking.Cc[unix.VTIME] = 0, 1 // a read waits a tenth of a second at most
	if err := unix.IoctlSetTermios(fd, setTermios, &asking); err != nil {
		return nil, err
	}
	defer unix.IoctlSetTermios(fd, setTermios, mode)
	deadline := time.Now().Add(limit)
	in, err := readUntil(fd, query, done, deadline)
	if n := giveBack(in); n > 0 {
		// Typed back by another process (tmux): polled, for the short while they take to come.
		for time.Now().Before(deadline) {
			if k, err := unix.IoctlGetInt(fd, inputQueued); err != nil || k >= n {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	return in, err
}

func readUntil(fd int, query string, done func([]byte) bool, deadline time.Time) ([]byte, error) {
	if _, err := unix.Write(fd, []byte(query)); err != nil {
		return nil, err
	}
	var in []byte
	buf := make([]byte, 4096)
	for !done(in) {
		if time.Now().After(deadline) {
			return in, fmt.Errorf("the terminal did not answer in time")
		}
		n, err := unix.Read(fd, buf)
		if err != nil && err != unix.EINTR && err != unix.EAGAIN {
			return in, err
		}
		in = append(in, buf[:max(n, 0)]...)
	}
	return in, nil
}

// InputWaiting is how many bytes wait in the input of the terminal at path, a line without its
// Enter too: counted without line editing, then the mode is restored. A program in line editing
// mode then reads such a line at once, without its Enter: call it only where a line editor (which
// reads key by key anyway) reads next.
func InputWaiting(path string) int {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0
	}
	defer unix.Close(fd)
	mode, err := unix.IoctlGetTermios(fd, getTermios)
	if err != nil {
		return 0
	}
	if mode.Lflag&unix.ICANON != 0 {
		counting := *mode
		counting.Lflag &^= unix.ICANON
		if unix.IoctlSetTermios(fd, setTermios, &counting) != nil {
			return 0
		}
		defer unix.IoctlSetTermios(fd, setTermios, mode)
	}
	n, _ := unix.IoctlGetInt(fd, inputQueued)
	return n
}
