package platform

import "errors"

// ErrWouldWait is ReadNow's answer when there is nothing to read yet and
// a writer may still write.
var ErrWouldWait = errors.New("nothing to read yet")
