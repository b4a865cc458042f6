package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ptybridge/ptybridge/internal/cli"
)

// Duration is a limit as the CLI takes it: seconds (a JSON number, or a
// string of one) or a Go duration ("90s", "2m"); 0 disables the limit.
type Duration time.Duration

// UnmarshalJSON takes a number of seconds or a string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	var text string
	switch v := v.(type) {
	case float64:
		text = fmt.Sprint(v)
	case string:
		text = v
	default:
		return fmt.Errorf("%s is not a duration: use seconds (10) or a unit (\"90s\", \"2m\")", b)
	}
	var c cli.Duration
	if err := c.UnmarshalText([]byte(text)); err != nil {
		return err
	}
	*d = Duration(c)
	return nil
}

// or is the limit, or def when none was given.
func (d *Duration) or(def time.Duration) time.Duration {
	if d == nil {
		return def
	}
	return time.Duration(*d)
}

// durationSchema is Duration's JSON schema.
var durationSchema = &jsonschema.Schema{Types: []string{"number", "string"}}

// inputSchema is the schema of a tool's input type In, with Durations
// as numbers or strings.
func inputSchema[In any]() *jsonschema.Schema {
	s, err := jsonschema.For[In](&jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[Duration](): durationSchema},
	})
	if err != nil {
		panic(fmt.Sprintf("the input schema of %v: %v", reflect.TypeFor[In](), err))
	}
	return s
}
