package markers

import "strconv"

// MaxStderrFrame is maxFrame, for the tests of package markers_test.
const MaxStderrFrame = maxFrame

// OwnEvent and OwnEndEvent bracket the shell's own text, as the fish hooks
// print them around the right prompt.
func OwnEvent(pid int) string    { return marker("O", strconv.Itoa(pid)) }
func OwnEndEvent(pid int) string { return marker("o", strconv.Itoa(pid)) }
