package relay

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// StreamView is what the relay's greeting says about the stream itself,
// for REPL evaluations that type and check the prompt without a tmux
// process (see replview.go):
//
//   - Relay and Offset place the client's first byte in the pane's
//     output: this relay instance had forwarded Offset bytes before the
//     client's turn. A client that saw the stream up to some offset knows
//     that nothing was printed since (no key of the human echoed, no
//     output of the REPL's) when the next greeting carries the same one.
//   - Paste is the pane's bracketed paste mode as of that offset.
type StreamView struct {
	Relay  string
	Offset int64
	Paste  markers.PasteMode
}

// newInstance names a relay process: a restarted relay counts its
// offset from zero again, so offsets of different instances never match.
func newInstance() string {
	return strconv.FormatInt(int64(os.Getpid()), 36) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
}

// String is the greeting's form: "relay:offset:paste".
func (v StreamView) String() string {
	return fmt.Sprintf("%s:%d:%s", v.Relay, v.Offset, v.Paste)
}

func parseStreamView(s string) (StreamView, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 || parts[0] == "" {
		return StreamView{}, fmt.Errorf("bad stream view %q", s)
	}
	off, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || off < 0 {
		return StreamView{}, fmt.Errorf("bad stream view %q", s)
	}
	switch p := markers.PasteMode(parts[2]); p {
	case markers.PasteUnknown, markers.PasteOff, markers.PasteOn:
		return StreamView{parts[0], off, p}, nil
	}
	return StreamView{}, fmt.Errorf("bad stream view %q", s)
}
