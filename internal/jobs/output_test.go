package jobs

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ptybridge/ptybridge/internal/bridge"
	"github.com/ptybridge/ptybridge/internal/markers"
	"github.com/ptybridge/ptybridge/internal/relay"
)

// An output beyond the bound keeps its first and last parts, and says so
// where the middle went.
const testID = markers.ID("0123456789abcdef")

func TestOutputBeyondTheBoundKeepsHeadAndTailWithANote(t *testing.T) {
	dir, err := os.MkdirTemp("/tmp", "jo")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	b := bridge.Bridge{Name: "b", RuntimeDir: dir}
	paneOut, feed, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- relay.Serve(relay.Config{Socket: SocketPath(b, "big"), Job: &relay.JobConfig{Name: "big", ID: testID}}, paneOut, io.Discard)
	}()
	defer func() { feed.Close(); <-done }()
	if err := relay.WaitFor(SocketPath(b, "big"), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	const lines = 1_200_000 // "%07d\n": 9.6 MB
	go func() {
		w := bufio.NewWriterSize(feed, 64*1024)
		w.WriteString(markers.Start(testID))
		for i := range lines {
			fmt.Fprintf(w, "%07d\r\n", i)
		}
		w.WriteString(markers.End(testID, 0))
		w.Flush()
	}()
	c, err := relay.DialJob(SocketPath(b, "big"))
	if err != nil {
		t.Fatal(err)
	}
	c.Follow(int64(lines*8), 0)
	for ev, err := c.Next(); ev.Stream != "ended"; ev, err = c.Next() {
		if err != nil {
			t.Fatal(err)
		}
	}
	c.Close()

	var out, notes strings.Builder
	if _, err := Output(OutputRequest{Bridge: b, Name: "big", Since: -1, Out: &out, Notes: &notes}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	dropped := lines*8 - relay.OutputBound
	note := fmt.Sprintf("[ptysend: %d bytes of the job's output were dropped here (offsets %d to %d)", dropped, relay.OutputHead, relay.OutputHead+dropped)
	if !strings.HasPrefix(text, "0000000\n0000001\n") || !strings.HasSuffix(text, fmt.Sprintf("%07d\n", lines-1)) || !strings.Contains(text, note) {
		t.Fatalf("got %d bytes: %q ... %q", len(text), text[:40], text[len(text)-300:])
	}
	if len(text) > relay.OutputBound+300 {
		t.Fatalf("%d bytes printed", len(text))
	}
	if !strings.Contains(notes.String(), fmt.Sprintf("next offset %d ", lines*8)) {
		t.Fatalf("notes: %q", notes.String())
	}

	// From an offset in the dropped middle: the tail, and how much is gone.
	out.Reset()
	if _, err := Output(OutputRequest{Bridge: b, Name: "big", Since: relay.OutputHead + 8, JSON: true, Out: &out, Notes: io.Discard}); err != nil {
		t.Fatal(err)
	}
	var ans OutputAnswer
	if err := json.Unmarshal([]byte(out.String()), &ans); err != nil {
		t.Fatal(err)
	}
	if ans.Dropped != int64(dropped-8) || ans.Next != lines*8 || ans.Running || len(ans.Text) > relay.OutputBound {
		t.Fatalf("since the middle: dropped %d, next %d, running %v, %d bytes", ans.Dropped, ans.Next, ans.Running, len(ans.Text))
	}
}
