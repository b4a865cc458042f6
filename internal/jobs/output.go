package jobs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/call"
	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// OutputRequest is ptysend --job-output NAME [--since OFFSET] [--stderr] [--raw] [--json].
type OutputRequest struct {
	Bridge     bridge.Bridge
	Name       string
	Since      int64 // negative when not given
	Stderr     bool  // the job's stderr instead of its output
	Raw, JSON  bool
	Out, Notes io.Writer
	// Give, when set, takes the answer as a value too (the MCP tool's result).
	Give func(OutputAnswer)
}

// OutputAnswer is --job-output --json, and the job_output tool's result.
type OutputAnswer struct {
	Name    string `json:"name"`
	Stream  string `json:"stream"` // "stdout" or "stderr"
	Since   int64  `json:"since"`
	Next    int64  `json:"next"` // the offset to pass as --since next time
	Text    string `json:"text"`
	Dropped int64  `json:"dropped_bytes"`
	// Withheld: the line being written was left out (--since prints whole
	// lines); it comes from Next, whole, once it ends.
	Withheld    bool  `json:"line_withheld"`
	Running     bool  `json:"running"`
	ExitStatus  *int  `json:"exit_status"`
	StderrBytes int64 `json:"stderr_bytes"` // all the job wrote to stderr
	// TruncatedBytes is the MCP server's: what its max_bytes left out of Text.
	TruncatedBytes int64 `json:"truncated_bytes,omitempty"`
}

// Output prints what the job printed (from an offset), as clean text or raw bytes, and the
// offset to go on from. Offsets count the bytes of --raw (with "\r\n" back to "\n"). With
// --since, clean text comes in whole lines: the line being written is withheld and the next
// offset is its start, so that following a log prints each line once, whole.
func Output(req OutputRequest) (int, error) {
	c, k, info, err := find(req.Bridge, req.Name)
	if err != nil {
		return 0, err
	}
	read := k.ReadOutput
	if c != nil {
		defer c.Close()
		read = c.ReadOutput
	}
	stream, streamName, flag := "out", "stdout", ""
	if req.Stderr {
		stream, streamName, flag = "err", "stderr", " --stderr"
	}
	segs, total, ended, err := read(stream, max(0, req.Since))
	if err != nil {
		return 0, relayFailed(req.Name, err)
	}
	ans := OutputAnswer{Name: req.Name, Stream: streamName, Since: max(0, req.Since), Next: total,
		Running: !ended, ExitStatus: info.Status, StderrBytes: info.StderrBytes}
	var text bytes.Buffer
	pos := ans.Since
	for i, seg := range segs {
		d := seg.Data
		if seg.Offset > pos {
			ans.Dropped += seg.Offset - pos
			fmt.Fprintf(&text, "\n[ptysend: %d bytes of the job's output were dropped here (offsets %d to %d): "+
				"a job's output is kept whole up to %d MiB, then its first %d MiB and its last %d MiB]\n",
				seg.Offset-pos, pos, seg.Offset, relay.OutputBound>>20, relay.OutputHead>>20, (relay.OutputBound-relay.OutputHead)>>20)
		}
		last := i == len(segs)-1
		if last && !req.Raw && !ended {
			// The next offset is where the line being written starts.
			if nl := bytes.LastIndexByte(d, '\n'); nl+1 < len(d) {
				ans.Next = seg.Offset + int64(nl+1)
				if req.Since >= 0 { // whole lines only
					d = d[:nl+1]
					ans.Withheld = true
				}
			}
		}
		if req.Raw {
			text.Write(d)
		} else {
			text.WriteString(cleantext.String(string(d)))
			if !last && len(d) > 0 && d[len(d)-1] != '\n' {
				text.WriteByte('\n')
			}
		}
		pos = seg.Offset + int64(len(seg.Data))
	}
	ans.Text = text.String()
	if req.Give != nil {
		req.Give(ans)
	}
	if req.JSON {
		return 0, json.NewEncoder(req.Out).Encode(ans)
	}
	if _, err := io.WriteString(req.Out, ans.Text); err != nil {
		return 0, err
	}
	note := fmt.Sprintf("ptysend: next offset %d (--job-output %s --since %d%s prints what comes after)", ans.Next, req.Name, ans.Next, flag)
	if ans.Withheld {
		note += "; the line being written is left out until it ends"
	} else if !req.Raw && ans.Next < total {
		note += "; the line being written starts there, so it comes again, whole"
	}
	switch {
	case info.Running:
		note += "; the job runs"
	case info.Status != nil && info.StoppedBy != "":
		note += fmt.Sprintf("; the job was stopped with exit status %d (--job-stop)", *info.Status)
	case info.Status != nil:
		note += fmt.Sprintf("; the job ended with exit status %d", *info.Status)
	}
	fmt.Fprintln(req.Notes, note)
	if !req.Stderr && req.Since < 0 && info.StderrBytes > 0 {
		fmt.Fprintf(req.Notes, "ptysend: the job also wrote %d bytes to stderr: --job-output %s --stderr\n", info.StderrBytes, req.Name)
	}
	if info.FullScreen {
		fmt.Fprintf(req.Notes, "ptysend: note: job %s shows a full-screen program, whose screens are no output: "+
			"--job-screen %s shows what it shows, --job-keys %s -- KEYS drives it\n", req.Name, req.Name, req.Name)
	}
	return 0, nil
}

// WaitRequest is ptysend --job-wait NAME [--until REGEX] [--since OFFSET].
type WaitRequest struct {
	Bridge bridge.Bridge
	Name   string
	Until  string // "" waits for the job's end
	// Since: only the output after it counts (and stderr from now on); negative: all of it.
	Since            int64
	Timeout, MaxTime time.Duration
	Out, Notes       io.Writer
	// Result is filled with how the wait ended (the MCP tool's result).
	Result *WaitResult
}

// WaitResult is how --job-wait ended: a line matched, or the job ended.
type WaitResult struct {
	Matched bool   `json:"matched" jsonschema:"a line matched until (false: the job ended first, or no until was given)"`
	Line    string `json:"line,omitempty" jsonschema:"the line that matched"`
	Stream  string `json:"stream,omitempty" jsonschema:"where it matched: stdout or stderr"`
	Next    int64  `json:"next" jsonschema:"the offset in that stream after the line: pass it as since to job_output or job_wait"`
	Running bool   `json:"running" jsonschema:"the job still runs"`
	// ExitStatus is the job's, once it ended.
	ExitStatus *int `json:"exit_status" jsonschema:"the job's exit status once it ended; null while it runs"`
}

// Wait waits until a line of the job's output or stderr (clean text, the
// line being written included) matches Until, printing it (exit 0), or
// the job ends (its status), or a timeout fires (124; the job runs on).
func Wait(ctx context.Context, req WaitRequest) (int, error) {
	start := time.Now()
	var re *regexp.Regexp
	if req.Until != "" {
		var err error
		if re, err = regexp.Compile(req.Until); err != nil {
			return 0, &failure.Error{
				Msg:  fmt.Sprintf("--until %q is not a regular expression: %v", req.Until, err),
				Hint: "give a Go (RE2) regular expression, e.g. --until 'Listening on|Serving HTTP'",
			}
		}
	}
	outSince, errSince := int64(0), int64(0)
	if req.Since >= 0 {
		outSince, errSince = req.Since, -1
	}
	events, failed, stop, err := follow(ctx, req.Bridge, req.Name, outSince, errSince)
	if err != nil {
		return 0, err
	}
	defer stop()

	m := map[string]*lineMatcher{"out": {re: re, pos: -1}, "err": {re: re, pos: -1}}
	noOutput := call.NewTimer(req.Timeout)
	overall := call.NewTimer(call.Remaining(start, req.MaxTime))
	for {
		select {
		case ev := <-events:
			switch ev.Stream {
			case "out", "err":
				noOutput.Reset(req.Timeout)
				if line, next, ok := m[ev.Stream].feed(ev.Offset, ev.Data); ok {
					return req.matched(ev.Stream, line, next)
				}
			case "ended":
				note := fmt.Sprintf("ptysend: job %s ended with exit status %d", req.Name, ev.Status)
				if re != nil {
					note += fmt.Sprintf(" before --until %q matched a line", req.Until)
				}
				fmt.Fprintln(req.Notes, note)
				if ev.Status < 0 {
					return 0, &failure.Error{
						Msg:  fmt.Sprintf("job %s ended, and its exit status was lost (its window's process was killed)", req.Name),
						Hint: "ptysend --job-output " + req.Name + " shows what it printed",
					}
				}
				*req.Result = WaitResult{ExitStatus: &ev.Status}
				return ev.Status, nil
			case "gone":
				return 0, relayFailed(req.Name, relay.ErrHungUp)
			}
		case err := <-failed:
			return 0, relayFailed(req.Name, err)
		case <-noOutput.C():
			return req.timedOut("--timeout", "job %s printed nothing for %v (--timeout) %s; it still runs", req.Name, req.Timeout, req.waitedFor())
		case <-ctx.Done():
			code, why := failure.Stopped(ctx)
			return code, &failure.Error{Code: code, Msg: fmt.Sprintf("%s %s; job %s runs on", why, req.waitedFor(), req.Name),
				Hint: failure.StoppedHint}
		case <-overall.C():
			return req.timedOut("--max-time", "waited %v (--max-time) %s; job %s still runs", req.MaxTime, req.waitedFor(), req.Name)
		}
	}
}

// follow sends job name's output and stderr from those offsets on (errSince -1: from now on),
// then its end: as its relay reads them, or a stopped job's kept output at once. stop ends it.
func follow(ctx context.Context, b bridge.Bridge, name string, outSince, errSince int64) (
	events <-chan relay.Event, failed <-chan error, stop func(), err error) {
	c, k, _, err := find(b, name)
	if err != nil {
		return nil, nil, nil, err
	}
	if c == nil {
		return replay(k, outSince, errSince), nil, func() {}, nil
	}
	if err := c.Follow(outSince, errSince); err != nil {
		c.Close()
		return nil, nil, nil, relayFailed(name, err)
	}
	// The reader ends with the connection, which stop closes.
	evs, fails := make(chan relay.Event, 16), make(chan error, 1)
	go func() {
		for {
			ev, err := c.Next()
			if err != nil {
				fails <- err
				return
			}
			select {
			case evs <- ev:
			case <-ctx.Done():
				return
			}
			if ev.Stream == "ended" || ev.Stream == "gone" {
				return
			}
		}
	}()
	return evs, fails, func() { c.Close() }, nil
}

func (req WaitRequest) waitedFor() string {
	if req.Until == "" {
		return "while waiting for it to end"
	}
	return fmt.Sprintf("while waiting for a line matching %q", req.Until)
}

func (req WaitRequest) timedOut(flag, format string, args ...any) (int, error) {
	return failure.ExitTimeout, &failure.Error{
		Code: failure.ExitTimeout,
		Msg:  fmt.Sprintf(format, args...),
		Hint: "wait longer with a larger " + flag + " (0: no limit), or look at its output with ptysend --job-output " + req.Name,
	}
}

// matched prints the matching line and where to go on from.
func (req WaitRequest) matched(stream, line string, next int64) (int, error) {
	*req.Result = WaitResult{Matched: true, Line: line, Stream: map[string]string{"out": "stdout", "err": "stderr"}[stream], Next: next, Running: true}
	fmt.Fprintln(req.Out, line)
	format := "ptysend: matched on the job's output; next offset %d (--job-output %s --since %d prints what comes after)\n"
	if stream == "err" {
		format = "ptysend: matched on the job's stderr; next stderr offset %d (--job-output %s --stderr --since %d prints what comes after)\n"
	}
	fmt.Fprintf(req.Notes, format, next, req.Name, next)
	return 0, nil
}

// lineMatcher matches each line of one stream of a job's output, as clean text, as it ends, and
// the line being written after each piece (a prompt has no newline). The k-th line of the clean
// text ends at the k-th "\n" of the stream: an offset of the stream.
type lineMatcher struct {
	re         *regexp.Regexp
	clean      *cleantext.Writer
	text       bytes.Buffer // the clean text after the lines matched
	pos        int64        // the offset of the stream where the line being written starts
	pendingRaw int          // the bytes of the line being written fed so far
}

// feed takes the piece of the stream at offset, and returns the first line that matches and the
// offset after it: for the line being written (a prompt, or a line whose newline is still to
// come), after the bytes of it seen so far.
func (m *lineMatcher) feed(offset int64, data []byte) (string, int64, bool) {
	if m.re == nil {
		return "", 0, false
	}
	if m.pos < 0 || offset != m.pos+int64(m.pendingRaw) {
		// The first piece, or one after output was dropped: start afresh.
		m.text.Reset()
		m.clean = cleantext.NewWriter(&m.text)
		m.pos, m.pendingRaw = offset, 0
	}
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			m.clean.Write(data)
			m.pendingRaw += len(data)
			break
		}
		m.clean.Write(data[:i+1])
		m.pos += int64(m.pendingRaw + i + 1)
		m.pendingRaw = 0
		data = data[i+1:]
		ended := bytes.LastIndexByte(m.text.Bytes(), '\n') + 1
		for line := range strings.Lines(string(m.text.Next(ended))) {
			if line = strings.TrimSuffix(line, "\n"); m.re.MatchString(line) {
				return line, m.pos, true
			}
		}
	}
	if p := m.clean.Pending(); p != "" && m.re.MatchString(p) {
		return p, m.pos + int64(m.pendingRaw), true
	}
	return "", 0, false
}
