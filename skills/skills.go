// Package skills holds the agent skills shipped with ptybridge, each a
// SKILL.md under a directory of its name, embedded so that a binary can
// print them (ptysend --skill). It holds text only: no behaviour lives
// here, and the files are the source of truth.
package skills

import _ "embed"

// PtyBridge is skills/ptybridge/SKILL.md: when and how an agent uses the
// shared terminal.
//
//go:embed ptybridge/SKILL.md
var PtyBridge string
