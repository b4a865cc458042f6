// Command ptysend runs a command in the shared terminal opened by
// ptybridge, as if the human had typed it, and makes the command's stdout,
// stderr and exit status its own. Its modes are internal/modes'.
package main

import (
	"os"
	"runtime"

	"github.com/ptybridge/ptybridge/internal/modes"
)

func main() {
	// A call mostly waits, one stream at a time: a second processor costs
	// 0.5 ms of CPU and 0.3 MiB a call (scripts/bench).
	runtime.GOMAXPROCS(1)
	os.Exit(modes.Main(os.Args[1:]))
}
