package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/ptybridge/ptybridge/internal/failure"
)

// Every error says what to do: one without a hint of its own gets the fallback.
func TestEveryErrorGetsAHintLine(t *testing.T) {
	for _, err := range []error{
		errors.New("something broke"),
		&failure.Error{Msg: "no hint given", Code: 130},
		&failure.Error{Msg: "stopped", Hint: failure.StoppedHint},
	} {
		var out strings.Builder
		Report(&out, "ptysend", err)
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "ptysend: error: ") || !strings.HasPrefix(lines[1], "hint: ") {
			t.Errorf("%v: want an error line and a hint line, got %q", err, out.String())
		}
	}
}
