package jobs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/cleantext"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// List prints one line per job of the bridge (--jobs): its name,
// "running" or its exit status, how long it ran, and the last line it
// printed; with asJSON one relay.Info per line.
func List(b bridge.Bridge, asJSON bool, stdout, stderr io.Writer) (int, error) {
	var infos []relay.Info
	for _, name := range names(b) {
		c, err := relay.DialJob(SocketPath(b, name))
		if err != nil {
			continue
		}
		info, err := c.Info()
		c.Close()
		if err == nil {
			infos = append(infos, info)
		}
	}
	sort.SliceStable(infos, func(i, j int) bool { return infos[i].Started.Before(infos[j].Started) })
	if asJSON {
		for _, info := range infos {
			if err := json.NewEncoder(stdout).Encode(info); err != nil {
				return 0, err
			}
		}
		return 0, nil
	}
	if len(infos) == 0 {
		fmt.Fprintln(stderr, "ptysend: no jobs (start one with: ptysend --job NAME -- WORDS)")
		return 0, nil
	}
	width := 4
	for _, info := range infos {
		width = max(width, len(info.Name))
	}
	for _, info := range infos {
		fmt.Fprintf(stdout, "%-*s  %-9s  %8s  %s\n", width, info.Name, stateText(info), runtimeText(info.Runtime), printable(info.LastLine))
	}
	return 0, nil
}

// stateText is "running", or "exit N" once the job ended.
func stateText(info relay.Info) string {
	switch {
	case info.Running:
		return "running"
	case info.Status == nil || *info.Status < 0:
		return "exit ?"
	}
	return fmt.Sprintf("exit %d", *info.Status)
}

// runtimeText is a job's runtime for people: 4.2s, 3m05s, 2h07m.
func runtimeText(secs float64) string {
	d := time.Duration(secs * float64(time.Second))
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// printable is s with controls as spaces, at most 120 characters.
func printable(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "…"
	}
	return s
}

// OutputRequest is ptysend --job-output NAME [--since OFFSET] [--stderr] [--raw] [--json].
type OutputRequest struct {
	Bridge     bridge.Bridge
	Name       string
	Since      int64 // negative when not given
	Stderr     bool  // the job's stderr instead of its output
	Raw, JSON  bool
	Out, Notes io.Writer
}

// outputAnswer is --job-output --json.
type outputAnswer struct {
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
}

// Output prints what the job printed (from an offset), as clean text or
// raw bytes, and the offset to go on from. Offsets count the bytes of
// --raw (with "\r\n" back to "\n"). With --since, clean text comes in
// whole lines: the line being written is withheld and the next offset is
// its start, so that following a log prints each line once, whole.
func Output(req OutputRequest) (int, error) {
	c, info, err := open(req.Bridge, req.Name)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	stream, streamName, flag := "out", "stdout", ""
	if req.Stderr {
		stream, streamName, flag = "err", "stderr", " --stderr"
	}
	segs, total, ended, err := c.ReadOutput(stream, max(0, req.Since))
	if err != nil {
		return 0, relayFailed(req.Name, err)
	}
	ans := outputAnswer{Name: req.Name, Stream: streamName, Since: max(0, req.Since), Next: total,
		Running: !ended, ExitStatus: info.Status, StderrBytes: info.StderrBytes}
	wholeLines := req.Since >= 0 && !req.Raw && !ended
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
				if wholeLines {
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
	case info.Status != nil:
		note += fmt.Sprintf("; the job ended with exit status %d", *info.Status)
	}
	fmt.Fprintln(req.Notes, note)
	if !req.Stderr && req.Since < 0 && info.StderrBytes > 0 {
		fmt.Fprintf(req.Notes, "ptysend: the job also wrote %d bytes to stderr: --job-output %s --stderr\n", info.StderrBytes, req.Name)
	}
	return 0, nil
}
