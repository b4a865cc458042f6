package markers

// MaxStderrFrame is maxFrame, for the tests of package markers_test.
const MaxStderrFrame = maxFrame
