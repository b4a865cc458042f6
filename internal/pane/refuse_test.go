package pane

import (
	"strings"
	"testing"
)

func TestBusyHintNamesTheKeyThatLeavesTheProgram(t *testing.T) {
	cases := []struct {
		cmdline string // as /proc shows it; the program's name is the first word
		says    string
	}{
		{"less /etc/passwd", "quit less in the ptybridge terminal (press q there)"},
		{"more README", "(press q there)"},
		{"man ls", "quit man in the ptybridge terminal (press q there)"},
		{"git log", "(press q there if it shows a pager, else Ctrl-C)"},
		{"vim notes.txt", "quit vim in the ptybridge terminal (type :q and Enter there; :wq saves first)"},
		{"vim.basic notes.txt", "type :q and Enter"},
		{"nvim", "type :q and Enter"},
		{"view /etc/hosts", "type :q and Enter"},
		{"nano notes.txt", "(press Ctrl-X there)"},
		{"top", "quit top in the ptybridge terminal (press q there)"},
		{"htop", "(press q there)"},
		{"python3", "quit python3 in the ptybridge terminal (press Ctrl-D there)"},
		{"python3.11 -q", "(press Ctrl-D there)"},
		{"python3 -i script.py", "(press Ctrl-D there)"},
		{"node", "(press Ctrl-D there)"},
		{"python3 script.py", "let python3 finish, or to stop it with Ctrl-C"},
		{"python3 -m http.server", "stop it with Ctrl-C"},
		{"node -e 1", "stop it with Ctrl-C"},
		{"psql -d db", `press Ctrl-D (or type \q) there`},
		{"sqlite3 x.db", "(press Ctrl-D (or type .quit) there)"},
		{"ssh host", "(type exit (or press Ctrl-D) there)"},
		{"sleep 300", "let sleep finish, or to stop it with Ctrl-C in the ptybridge terminal"},
		{"bash build.sh", "let bash finish, or to stop it with Ctrl-C"},
		{"some-tool --serve", "let some-tool finish, or to quit it, in the ptybridge terminal"},
	}
	for _, c := range cases {
		t.Run(c.cmdline, func(t *testing.T) {
			args := strings.Fields(c.cmdline)
			hint := busyHint(args[0], args)
			if !strings.Contains(hint, c.says) || !strings.HasPrefix(hint, "ask the user to ") || !strings.HasSuffix(hint, ", then retry") {
				t.Fatalf("want a hint that says %q, got %q", c.says, hint)
			}
			if strings.Contains(hint, "Ctrl-C") && !strings.Contains(c.says, "Ctrl-C") {
				t.Fatalf("Ctrl-C does not leave %s, the hint must not suggest it: %q", args[0], hint)
			}
		})
	}
}
