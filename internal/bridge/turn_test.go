package bridge

import (
	"strings"
	"testing"
	"time"

	"github.com/ptybridge/ptybridge/internal/relay"
)

func TestACallWaitingBehindTheSetUpIsToldNothing(t *testing.T) {
	var stderr strings.Builder
	w := waitNotices{stderr: &stderr}
	w.tell(relay.Queued{Call: SetUpCall, Since: time.Now(), Ahead: 1})
	if stderr.Len() != 0 {
		t.Fatalf("the set-up is a moment of ptybridge's, no call to wait for: %q", stderr.String())
	}
	w.tell(relay.Queued{Call: "make test", Since: time.Now(), Ahead: 1})
	if !strings.Contains(stderr.String(), `another ptysend call, "make test", holds the shared terminal`) {
		t.Fatalf("a call of the agent's is named: %q", stderr.String())
	}
}
