package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// ptysend --sessions: the user's bridges, each with its name, where its
// commands run and whether it is free.

// listedBridge is one object of ptysend --sessions --json.
type listedBridge struct {
	Name    string `json:"name"`
	User    string `json:"user"`
	Shell   string `json:"shell"`
	Far     bool   `json:"far"`
	Command string `json:"command"`
	State   string `json:"state"`
	Busy    string `json:"busy"`
}

// sessionLines are the lines of ptysend --sessions, by bridge name (the
// first tab-separated field).
func sessionLines(t *testing.T, b *bridge) map[string]string {
	t.Helper()
	out := b.run("--sessions")
	lines := map[string]string{}
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		name, _, _ := strings.Cut(l, "\t")
		lines[name] = l
	}
	return lines
}

// sessionObjects is ptysend --sessions --json, by bridge name.
func sessionObjects(t *testing.T, b *bridge) map[string]listedBridge {
	t.Helper()
	out := b.run("--sessions", "--json")
	var list []listedBridge
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("--sessions --json is no JSON array: %v\n%s", err, out)
	}
	objects := map[string]listedBridge{}
	for _, o := range list {
		objects[o.Name] = o
	}
	if len(objects) != len(list) {
		t.Errorf("--sessions --json names a bridge twice:\n%s", out)
	}
	return objects
}

// expectOnlyBridges checks that --sessions, as text and as JSON, lists
// exactly the bridges named, each with its own name.
func expectOnlyBridges(t *testing.T, b *bridge, names ...string) (map[string]string, map[string]listedBridge) {
	t.Helper()
	lines, objects := sessionLines(t, b), sessionObjects(t, b)
	for _, listed := range [][]string{mapKeys(lines), mapKeys(objects)} {
		slices.Sort(listed)
		want := slices.Sorted(slices.Values(names))
		if !slices.Equal(listed, want) {
			t.Errorf("--sessions must list exactly the bridges %q; it lists %q:\n%s", want, listed, b.run("--sessions"))
		}
	}
	return lines, objects
}

func mapKeys[V any](m map[string]V) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// expectFree checks that the bridge is listed as free, in both forms.
func expectFree(t *testing.T, name string, lines map[string]string, objects map[string]listedBridge) {
	t.Helper()
	if fields := strings.Split(lines[name], "\t"); len(fields) < 4 || fields[3] != "free" {
		t.Errorf("--sessions must say the bridge %s is free: %q", name, lines[name])
	}
	if o := objects[name]; o.State != "free" || o.Busy != "" {
		t.Errorf("--sessions --json must say the bridge %s is free: %+v", name, o)
	}
}

func TestSessionsListsAPlainBridgeAsFree(t *testing.T) {
	b := startBridge(t) // ptybridge with no COMMAND: the user's shell
	// Before any call, and after one.
	for _, when := range []string{"before any ptysend call", "after a ptysend call"} {
		t.Run(when, func(t *testing.T) {
			if when == "after a ptysend call" {
				b.run("--", "true")
			}
			lines, objects := expectOnlyBridges(t, b, b.name)
			expectFree(t, b.name, lines, objects)
			line := lines[b.name]
			if !strings.Contains(line, "\t"+currentUser()+"@") || !strings.Contains(line, "bash (local)") {
				t.Errorf("--sessions must say where the commands run (%s@host, bash (local)): %q", currentUser(), line)
			}
			if o := objects[b.name]; o.User != currentUser() || o.Shell != "bash" || o.Far || o.Command != "" {
				t.Errorf("--sessions --json: want the user %s, shell bash, local, no command; got %+v", currentUser(), o)
			}
		})
	}
}

func TestSessionsListsABridgeOpenedOnACommandBesideTheDefaultOne(t *testing.T) {
	b := startBridge(t)
	b.openTerminal("--session", "box", "--", "bash", "--noprofile", "--norc")
	// ptybridge attaches once box's relay answers; the prompt may come before either.
	b.waitFor("the bridge box, a terminal attached, and its shell's prompt", func() bool {
		out, err := b.tmux("display-message", "-p", "-t", "=box:", "#{session_name} #{session_attached}")
		name, attached, _ := strings.Cut(strings.TrimSpace(out), " ")
		return err == nil && name == "box" && attached != "0" && strings.TrimSpace(b.cursorLineOf("box")) != ""
	})
	lines, objects := expectOnlyBridges(t, b, b.name, "box")
	expectFree(t, b.name, lines, objects)
	expectFree(t, "box", lines, objects)
	if o := objects["box"]; o.Command != "bash --noprofile --norc" || o.Shell != "bash" || o.Far {
		t.Errorf("--sessions --json: want box opened on bash --noprofile --norc, a local bash; got %+v", o)
	}
	if o := objects[b.name]; o.Command != "" {
		t.Errorf("--sessions --json: the default bridge was opened on no command; got %+v", o)
	}
	// Each name is the bridge to send to.
	if got := b.run("--session", "box", "--", "echo in-box"); got != "in-box\n" {
		t.Fatalf("the bridge box: got %q", got)
	}
	lines, objects = expectOnlyBridges(t, b, b.name, "box")
	expectFree(t, "box", lines, objects)
}
