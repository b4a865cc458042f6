package pane

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/failure"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/platform"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// FarRecord is what ptysend learnt of the far shell behind the pane's
// carrier: its kind from the probe, and once its first call ran, that it
// has the hooks, its pid (in its own namespace) and who and where it is.
// It lives in the runtime directory (<session>.far.json) and holds for
// one carrier process only.
type FarRecord struct {
	Carrier     string          `json:"carrier"` // platform.ExecImage of the carrier
	CarrierName string          `json:"carrier_name"`
	Kind        markers.FarKind `json:"kind"`
	Hooked      bool            `json:"hooked"`
	PID         int             `json:"pid"`
	User        string          `json:"user,omitempty"`
	Host        string          `json:"host,omitempty"`
	// PromptCol and Width are the prompt's width and the pane's as the
	// probe saw them: how many rows a typed loader line takes.
	PromptCol int `json:"prompt_col"`
	Width     int `json:"width"`
}

// Where is "user@host" when known.
func (r *FarRecord) Where() string {
	if r == nil || r.User == "" {
		return ""
	}
	return r.User + "@" + r.Host
}

// LoadFar reads the record of the bridge; nil when there is none.
func LoadFar(b bridge.Bridge) *FarRecord {
	data, err := os.ReadFile(b.File(".far.json"))
	if err != nil {
		return nil
	}
	var r FarRecord
	if json.Unmarshal(data, &r) != nil {
		return nil
	}
	return &r
}

// SaveFar writes the record.
func SaveFar(b bridge.Bridge, r *FarRecord) error {
	data, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return os.WriteFile(b.File(".far.json"), data, 0o600)
}

// FarRecordFor is the record of the far shell behind carrier pid, when
// the record is about that very process; nil otherwise.
func FarRecordFor(b bridge.Bridge, carrier int) *FarRecord {
	r := LoadFar(b)
	if r == nil || r.Carrier == "" || r.Carrier != platform.ExecImage(carrier) {
		return nil
	}
	return r
}

// FarBusyError: the far shell's hooks say it runs a command. That command
// may be another shell the human started there (sudo -i on the far host),
// which the caller may probe when the screen shows a prompt.
type FarBusyError struct{ Err *failure.Error }

func (e *FarBusyError) Error() string { return e.Err.Msg }
func (e *FarBusyError) Unwrap() error { return e.Err }

// ErrFarSilent means the far shell the record is about did not speak:
// its hooks are gone (the human replaced the shell), or it is not there.
var ErrFarSilent = errors.New("the far shell's hooks did not speak")

// AwaitFarPrompt decides from the far shell's own events whether it waits
// at an empty prompt, as AwaitFreePrompt does locally. The far shell may
// draw its prompt a moment after the last call ended (fish does), so
// its PROMPT event is awaited for settleLimit; ErrFarSilent when it
// never came.
func AwaitFarPrompt(rc *relay.Client, r *FarRecord, panePID int) error {
	tr := markers.TrackerFrom(rc.Shell)
	deadline := time.Now().Add(settleLimit)
	buf := make([]byte, 4096)
	for s := tr.Snapshot(); s.State != markers.StatePrompt || s.PID != r.PID; s = tr.Snapshot() {
		rc.SetReadDeadline(deadline)
		n, err := rc.Read(buf)
		tr.Write(buf[:n])
		if errors.Is(err, os.ErrDeadlineExceeded) {
			break
		}
		if err != nil {
			rc.SetReadDeadline(time.Time{})
			return err
		}
	}
	rc.SetReadDeadline(time.Time{})
	s := tr.Snapshot()
	if s.PID != r.PID {
		return ErrFarSilent
	}
	switch s.State {
	case markers.StateRunning:
		return &FarBusyError{&failure.Error{
			Code: failure.ExitBusy,
			Msg: fmt.Sprintf("the shared terminal is busy: the shell at the far end (%s, through %s) is running a command, so nothing was typed",
				r.describe(), r.CarrierName),
			Hint: "ask the user to let it finish or press Ctrl-C in the ptybridge terminal, then retry " +
				"(a program of theirs showing a shell-like prompt reads as busy too)",
		}}
	case markers.StateTyped:
		return HalfTypedError
	}
	if platform.TypedAhead(panePID) {
		return HalfTypedError
	}
	return nil
}

func (r *FarRecord) describe() string {
	if w := r.Where(); w != "" {
		return string(r.Kind) + " as " + w
	}
	return string(r.Kind)
}
