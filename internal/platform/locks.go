package platform

// ByteLocks is a directory opened to lock single bytes of it. The locks
// belong to this open of the directory, not to the process: another open
// sees them, even in the same process. They are dropped when it is
// closed, or when the process ends, however it ends. No file is made for
// them.
//
// It holds a raw descriptor: an *os.File could be closed by the garbage
// collector, which would drop the locks.
type ByteLocks struct{ fd int }
