// Command ptysend runs a command in the shared terminal opened by
// ptybridge, as if the human had typed it, and makes the command's stdout,
// stderr and exit status its own. Its modes are internal/modes'.
package main

import (
	"os"

	"github.com/ptybridge/ptybridge/internal/modes"
)

func main() {
	os.Exit(modes.Main(os.Args[1:]))
}
