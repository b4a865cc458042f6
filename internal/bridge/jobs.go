package bridge

// Missing explains a bridge session that does not exist, as a call that
// takes a turn at the pane would: for the modes that reach the bridge
// without one (a job's, internal/jobs).
func (b Bridge) Missing() error { return b.missingError() }

// Target is the exact-match tmux target of the bridge session.
func (b Bridge) Target() string { return b.target() }
