package markers_test

import (
	"strings"
	"testing"

	"github.com/ptybridge/ptybridge/internal/markers"
)

func TestNewIDIsSixteenLowercaseHexDigits(t *testing.T) {
	for range 100 {
		id, err := markers.NewID()
		if err != nil {
			t.Fatalf("NewID() error: %v", err)
		}
		if len(id) != 16 {
			t.Fatalf("NewID() = %q: %d characters, want 16", id, len(id))
		}
		if strings.Trim(string(id), "0123456789abcdef") != "" {
			t.Fatalf("NewID() = %q: want only lowercase hex digits", id)
		}
		if !id.Valid() {
			t.Fatalf("NewID() = %q, which is not Valid()", id)
		}
	}
}

func TestNewIDsDiffer(t *testing.T) {
	seen := map[markers.ID]bool{}
	for range 1000 {
		id, err := markers.NewID()
		if err != nil {
			t.Fatalf("NewID() error: %v", err)
		}
		if seen[id] {
			t.Fatalf("NewID() returned %q twice", id)
		}
		seen[id] = true
	}
}

func TestValid(t *testing.T) {
	tests := []struct {
		name string
		id   markers.ID
		want bool
	}{
		{"sixteen lowercase hex digits", "0123456789abcdef", true},
		{"all zeros", "0000000000000000", true},
		{"empty", "", false},
		{"fifteen digits", "0123456789abcde", false},
		{"seventeen digits", "0123456789abcdef0", false},
		{"uppercase hex", "0123456789ABCDEF", false},
		{"not hex", "0123456789abcdeg", false},
		{"trailing newline", "0123456789abcdef\n", false},
		{"leading space", " 123456789abcdef", false},
		{"shell metacharacter", "0123456789abcde;", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.id.Valid(); got != tt.want {
				t.Errorf("ID(%q).Valid() = %v, want %v", tt.id, got, tt.want)
			}
		})
	}
}

// The markers are the contract with the scripts, which print them with
// printf: the exact bytes matter.
func TestMarkerBytes(t *testing.T) {
	const id markers.ID = "0123456789abcdef"
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"start", markers.Start(id), "\x1b]6973;ptybridge;S;0123456789abcdef\a"},
		{"end, status 0", markers.End(id, 0), "\x1b]6973;ptybridge;E;0123456789abcdef;0\a"},
		{"end, status 1", markers.End(id, 1), "\x1b]6973;ptybridge;E;0123456789abcdef;1\a"},
		{"end, status 255", markers.End(id, 255), "\x1b]6973;ptybridge;E;0123456789abcdef;255\a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

// A marker contains no newline, so the tty's ONLCR never changes it, and
// no byte a terminal would display.
func TestMarkersAreOneInvisibleOSCSequence(t *testing.T) {
	const id markers.ID = "fedcba9876543210"
	for _, m := range []string{markers.Start(id), markers.End(id, 0), markers.End(id, 130)} {
		if !strings.HasPrefix(m, "\x1b]") || !strings.HasSuffix(m, "\a") {
			t.Errorf("marker %q is not ESC ] ... BEL", m)
		}
		if strings.ContainsAny(m, "\r\n") {
			t.Errorf("marker %q contains CR or LF", m)
		}
		if strings.Count(m, "\x1b") != 1 || strings.Count(m, "\a") != 1 {
			t.Errorf("marker %q is not exactly one OSC sequence", m)
		}
	}
}
