package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptybridge/ptybridge/internal/failure"
)

// One rule for every tool: isError is set when the tool did not do what was asked (busy, refused,
// timed out, no bridge, bad arguments); failure says what happened and what to do, retry whether
// trying again helps. A command that ran and exited non-zero did what was asked: its exit_code
// says how it went.

// Outcome is what every tool's structured result may carry beside its own fields.
type Outcome struct {
	Notes   []string     `json:"notes,omitempty" jsonschema:"ptybridge's own notes on the call (what the terminal asked, a wait for the turn or for the user, a full-screen program, where to read on); never the command's output"`
	Failure *FailureInfo `json:"failure,omitempty" jsonschema:"set with isError: what went wrong and what to do about it"`
	Retry   string       `json:"retry,omitempty" jsonschema:"set with isError: later (nothing was done; it can succeed later as it is: the user is busy, or nobody watches the terminal), with_more_time (a timeout fired: a larger timeout or max_time), after_the_hint (do what failure.hint says first, often: ask the user), again (the call was stopped before it finished)"`
}

// FailureInfo is a failed call's report, in the tools' words.
type FailureInfo struct {
	Message string `json:"message" jsonschema:"what happened"`
	Hint    string `json:"hint" jsonschema:"what to do, or what to ask the user"`
	Code    int    `json:"code" jsonschema:"75: busy, nothing was done; 77: the user refused the command; 124: a timeout fired; 125: ptybridge failed; 128+N: the call was stopped by signal N"`
}

// retryVerdicts are retry's values, in its schema's enum.
var retryVerdicts = []any{"later", "with_more_time", "after_the_hint", "again"}

// CommandResult is the result of the tools that type into the terminal: run and the REPL tools.
type CommandResult struct {
	Stdout         string `json:"stdout" jsonschema:"the command's standard output as clean text (raw: the terminal's bytes); for a REPL its response, without the echoed input and prompts"`
	Stderr         string `json:"stderr" jsonschema:"the command's own standard error (ptybridge's notes are in notes)"`
	ExitCode       int    `json:"exit_code" jsonschema:"the command's exit status (non-zero is the command's own, not an error of the tool); with isError: 75 busy, 77 refused by the user, 124 timed out, 125 ptybridge failed"`
	TimedOut       bool   `json:"timed_out" jsonschema:"a timeout fired (exit_code 124, isError): the command was interrupted and stdout holds its output so far"`
	DurationMS     int64  `json:"duration_ms" jsonschema:"how long the call took, in milliseconds"`
	TruncatedBytes int64  `json:"truncated_bytes,omitempty" jsonschema:"bytes left out of the middle of stdout and stderr to keep them within max_bytes; output_id and output read all of it"`
	OutputID       int    `json:"output_id,omitempty" jsonschema:"with truncated_bytes: the command's id in history, for output with offset"`
	Error          bool   `json:"error,omitempty" jsonschema:"repl_eval: the response is the REPL's report of an error (a traceback, an exception); exit_code is 1"`
}

// failureOf is err as the tools word it, and its exit code.
func (s *server) failureOf(err error) *FailureInfo {
	e := failure.From(err)
	msg, hint := e.Msg, e.Hint
	if e.Verbatim != "" {
		msg, hint = splitReport(e.Verbatim)
	}
	return &FailureInfo{Message: s.words.say(msg), Hint: s.words.say(hint), Code: e.ExitCode()}
}

// splitReport reads a report printed as it is ("ptysend: error: ..." and "hint: ..." lines, or
// the no-bridge message's paragraphs) back into its message and hint.
func splitReport(text string) (msg, hint string) {
	var m, h []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		switch rest, isHint := strings.CutPrefix(line, "hint: "); {
		case line == "":
		case isHint || len(m) > 0:
			h = append(h, rest)
		default:
			_, rest, found := strings.Cut(line, "error: ")
			if !found {
				_, rest, _ = strings.Cut(line, "Error: ")
			}
			m = append(m, rest)
		}
	}
	return strings.Join(m, " "), strings.Join(h, " ")
}

// retry says whether retrying a failed call can help, by its exit code.
func retry(code int) (verdict, why string) {
	switch {
	case code == failure.ExitBusy:
		return "later", "nothing was done; it can succeed later as it is (the user is busy in the terminal, or nobody watches it): retry in a while (with wait_free while the user is busy), or ask the user as the hint says"
	case code == failure.ExitTimeout:
		return "with_more_time", "a timeout fired; if it needs longer, retry with a larger timeout or max_time"
	case code > 128:
		return "again", "the call was stopped before it finished; call again if you still need it"
	}
	return "after_the_hint", "retrying as it is fails the same way: first do what the hint says (often: ask the user)"
}

// notesOf splits ptysend's notes into one string each, in the tools' words.
func (s *server) notesOf(text string) []string {
	var notes []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "ptysend: "); ok {
			notes = append(notes, s.words.say(strings.TrimPrefix(rest, "note: ")))
		} else if line != "" && len(notes) > 0 { // a note's next line
			notes[len(notes)-1] += " " + s.words.say(line)
		} else if line != "" {
			notes = append(notes, s.words.say(line))
		}
	}
	return notes
}

// maxBytesDefault bounds each text field of a result when the call gives no max_bytes.
const maxBytesDefault = 256 << 10

// bound keeps text within max bytes: its head and its tail, with a line between them saying
// what was left out, and returns how many bytes were. left is what the text already lacks at
// seam (a capture keeps the first and last part of a longer output).
func bound(text string, seam int, left int64, limit int, readOn string) (string, int64) {
	if left == 0 && len(text) <= limit {
		return text, 0
	}
	h, t := limit/2, len(text)-limit/2
	if left > 0 {
		h, t = min(h, seam), max(t, seam)
	}
	h, t = runeStart(text, h), runeStart(text, t)
	left += int64(t - h)
	return text[:h] + fmt.Sprintf("\n[ptybridge: %d bytes left out here to keep within max_bytes (%d): %s]\n", left, limit, readOn) + text[t:], left
}

// runeStart is i moved back to the start of the UTF-8 character it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// textBound bounds the text content: a short rendering, the structured content has it all.
const textBound = 8 << 10

// reply is the tool's result: the structured content (fields, then the outcome's), sent once,
// and a short text for people and for clients that show only text.
func reply(fields any, o Outcome, text string) *mcp.CallToolResult {
	content := map[string]any{}
	if fields != nil {
		b, _ := json.Marshal(fields) // strings, numbers and times
		json.Unmarshal(b, &content)
	}
	if len(o.Notes) > 0 {
		content["notes"] = o.Notes
		text += "\nnotes:\n- " + strings.Join(o.Notes, "\n- ")
	}
	if o.Failure != nil {
		content["failure"], content["retry"] = o.Failure, o.Retry
	}
	if len(text) > textBound {
		cut := runeStart(text, textBound)
		text = text[:cut] + fmt.Sprintf("\n[%d more bytes in the structured content]", len(text)-cut)
	}
	return &mcp.CallToolResult{
		IsError:           o.Failure != nil,
		Content:           []mcp.Content{&mcp.TextContent{Text: strings.TrimLeft(text, "\n")}},
		StructuredContent: content,
	}
}

// commandText is a command's text content: its status, and its output when short.
func commandText(r CommandResult, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "exit status %d in %v", r.ExitCode, took.Round(time.Millisecond))
	if r.Error {
		b.WriteString(" (the REPL reported an error)")
	}
	fmt.Fprintf(&b, "; %d bytes of stdout, %d of stderr\n", len(r.Stdout), len(r.Stderr))
	if r.Stdout != "" {
		b.WriteString("stdout:\n" + withNewline(r.Stdout))
	}
	if r.Stderr != "" {
		b.WriteString("stderr:\n" + withNewline(r.Stderr))
	}
	return b.String()
}

func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
