package cli

import (
	"fmt"

	"github.com/alecthomas/kong"
)

// OptionalValue is a flag whose value may be left out: --history or
// --history=5. Given without "=", it takes no value, so the next word is
// never taken for one.
type OptionalValue struct {
	Set   bool
	Value string // "" when given without one
}

// Decode takes the value attached with "=", if any.
func (o *OptionalValue) Decode(ctx *kong.DecodeContext) error {
	o.Set = true
	if ctx.Scan.Peek().Type == kong.FlagValueToken {
		o.Value = fmt.Sprint(ctx.Scan.Pop().Value)
	}
	return nil
}

// IsBool makes kong parse the flag as one without a separate value.
func (o *OptionalValue) IsBool() bool { return true }
