package pane

import (
	"encoding/json"
	"os"
)

// The records that outlive a call (the far shell's, the agent's REPL's)
// are JSON files in the runtime directory, written through a rename so
// that a reader never sees half of one.

func saveJSON(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// loadJSON reads the record at path into v; false when there is none or
// it is torn (then it is removed: it describes nothing usable).
func loadJSON(path string, v any) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	if json.Unmarshal(data, v) != nil {
		os.Remove(path)
		return false
	}
	return true
}
