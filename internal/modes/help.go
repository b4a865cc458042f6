package modes

// helpDescription is the description for kong: the whole text when the
// command line asks for help, else none. kong runs every help text
// through a regular expression at each parse (for ${variables}), which
// for the long description costs ~0.3 MB of heap on every call, a few
// percent of a call's peak memory.
func helpDescription(args []string) string {
	for _, a := range args {
		switch a {
		case "--":
			return ""
		case "-h", "--help":
			return description
		}
	}
	return ""
}

const description = `Run a command in the shared terminal that the user opened with ptybridge.

The WORDS are joined with spaces and run as shell code by the shell in the
shared terminal, exactly as if the user had typed them (like "ssh host
WORDS..."): cd, exported variables and functions persist between calls.
Quote what the shell must not expand: ptysend -- 'echo $HOME'.

The command's stdout becomes ptysend's stdout as clean text (as a pipe would
have carried it: no colour codes, \n line endings, progress-bar redraws
collapsed to their last state; --raw for the exact bytes the terminal got),
its stderr ptysend's stderr (byte for byte, apart; the user sees it in the
shared terminal too), and its exit status ptysend's exit status.
Standard input is forwarded to the command unless it is a terminal; then
the command reads the shared terminal, where the user can answer (sudo and
ssh prompts read it anyway).

Shells: the WORDS are code for the shell that runs in the shared terminal,
whichever the user started there: bash, zsh, sh (dash) or fish. Write them
in its syntax:
  ptysend -- 'export MODE=dev; for f in *.go; do wc -l "$f"; done'   # bash, zsh, sh
  ptysend -- 'set -x MODE dev; for f in *.go; wc -l $f; end'         # fish
Other shells (tcsh, nu, pwsh...) are refused with exit 125.

Concurrent calls run one at a time; a call that has to wait says on stderr
which call holds the terminal, and since when.

The terminal is the user's: ptysend types nothing while the user runs
something, has a half-typed line or scrolls back; it exits 75 and the
"hint:" line says what to ask the user. A command waiting for the user (a
password prompt, a [y/N] question) is not killed by --timeout, however
short; each time one waits, ptysend says on stderr at once what the terminal
asks ("ptysend: the terminal asks: ...") and that the user answers it there.
--max-time still applies. A question from a program run under sudo (after
the password) cannot be seen: --timeout applies to it.

Timeouts: a command that prints nothing, on stdout or stderr, for 10s
(--timeout) is interrupted, and so is any command after 120s in all
(--max-time). A quiet build or test needs more: --timeout 60.

Exit status: the command's own, or ptysend's:
  75   the terminal is busy with something of the user's (a program, a
       half-typed line, copy mode, a busy REPL): nothing was typed; it can
       succeed later as it is (retry, or use --wait-free)
  77   the user refused to run it (ptybridge --confirm): nothing was typed
  124  --timeout or --max-time fired (Ctrl-C is sent, then Ctrl-\ 3 s
       later; the output so far is printed), or another ptysend call held
       the terminal past --max-time
  125  ptysend itself failed or refused for a reason that needs you to act:
       no bridge, bad flags, an unsupported shell, a dead REPL, a command
       while a REPL runs

REPLs (python3, node, psql...) run in the shared terminal too, where the user
sees every evaluation:
  --repl-start CMD   runs CMD and returns once its prompt shows (the output so
                     far is printed); --prompt REGEX says what the prompt looks
                     like (the line the cursor is on), for programs without a
                     preset (presets: python3/python, node, psql, irb, nix repl,
                     ghci, lua, sqlite3)
  --repl-eval EXPR   types EXPR (one or several lines) into it and prints the
                     response, without the echoed input and prompts; exit 0,
                     124 on a timeout (the evaluation gets Ctrl-C, the REPL stays
                     usable), 125 when the REPL died, or waits for input on a
                     line that is not its prompt (input(): the user answers)
  --repl-close       leaves it (Ctrl-D, then SIGTERM, SIGKILL) and returns when
                     the shell is back; closing when none is open is harmless
While a REPL runs, "ptysend -- CMD" is refused: close the REPL first.

Seeing the terminal and talking to the user (these type nothing):
  --screen           prints the screen as the user sees it now (an editor, a
                     pager, a half-typed line...), and on stderr where the
                     cursor is: "ptysend: cursor at row R, column C (of W x H)",
                     counted from 1; with --json one object {rows, cursor_row,
                     cursor_col, width, height, alternate_screen, copy_mode}.
                     Works while the terminal is busy.
  --status           says whether the terminal is free for a command (exit 0)
                     or what holds it (exit 75): a program and since when, a
                     REPL, copy mode, a half-typed line, another ptysend call;
                     also the shell, its user and directory, and --confirm.
                     --json for one object. Exit 125 when no bridge runs.
  --history[=N]      lists the last N (default 10) commands run at the shell's
                     prompt, by the user or by you, oldest first, one line
                     each: id, who (user/agent), exit status (or running),
                     start, duration, directory, command line. --json for one
                     object per line
  --output[=ID]      prints what that command printed in the terminal, as
                     clean text (--raw for the bytes); without ID, the user's
                     most recent command, finished or still running. Exit 125
                     for an id the history does not hold
  --notify MESSAGE   shows "[agent] MESSAGE" on the message line of the user's
                     terminal(s) for 10 s, with the bell; returns at once
  --wait-free DURATION
                     with a command, --repl-start or --repl-eval: when the
                     terminal is busy, says once on stderr what it waits for,
                     waits up to DURATION for it to be free, then runs; exit 75
                     with the refusal when it is still busy
The user says "I just ran make and it failed, look": ptysend --history, then
ptysend --output (or --output=ID). The history is kept in memory, the last
100 commands, each with at most 1 MiB of output (its start and its end).

When the user opened the terminal with "ptybridge --confirm", they see each
command and REPL input first and it runs only if they press y; when they
refuse, ptysend exits 77 and nothing was typed (ask them why).

Long-running jobs (dev servers, watchers, long builds) run each in a window
of their own in the user's tmux session, beside the shared terminal, where
the user sees them in the status line, can switch to them, type, stop them:
  --job NAME -- WORDS
                     starts WORDS in a new window NAME, in a shell of the
                     shared shell's kind, directory and environment (as that
                     shell started: what was exported in it since is not
                     carried; --env KEY=VALUE, --cwd DIR); returns at once
                     (exit 0; 125 when a running job has the NAME). NAME:
                     letters, digits, - and _ (at most 40)
  --jobs             one line per job: name, running or "exit N", runtime,
                     the last line it printed (--json: one object per line)
  --job-output NAME  what it printed so far, as clean text (--raw: bytes;
                     --stderr: its stderr; --json); kept whole up to 8 MiB,
                     then the first and last parts. stderr says the offset to
                     pass next time: --since OFFSET prints only what came
                     after, in whole lines
  --job-wait NAME [--until REGEX]
                     waits for a line (clean text, stdout or stderr) that
                     matches REGEX (exit 0, the line printed), or for the job
                     to end (its exit status); --timeout and --max-time apply
                     (124; the job runs on)
  --job-stop NAME    Ctrl-C, then Ctrl-\ 3 s later, then SIGKILL to its process
                     group; closes its window; exits with the job's status
  --job-send NAME [--no-enter] -- TEXT
                     types TEXT literally into the job's window, then Enter
  --job-keys NAME -- KEY...
                     sends tmux key names (C-c, Up, Enter, q, G)
  --job-screen NAME  what its window shows now, and the cursor (--json)
A job that ends by itself, or that the user stops, leaves its window, marked
finished, until the user closes it; its output can be read until then. Jobs
end with the session.

Agents: ptysend --mcp is an MCP server (stdio) with the tools run, repl_start,
repl_eval and repl_close; ptysend --skill prints the skill (SKILL.md) that
says when and how to use the shared terminal.

Where commands run: in whatever shell the shared terminal reaches. After the
user types "ssh web1", "su - deploy", "sudo -i" or "docker exec -it box bash"
there, ptysend drives the shell at the far end through the terminal itself
(bash, zsh, fish or sh; nothing is installed there): same contract, and a note
on stderr the first time. --sessions lists the user's bridges (one per host,
opened with "ptybridge --session NAME -- ssh HOST"), with user@host and shell,
free or busy; pick one with --session NAME.

Examples:
  ptysend -- ls -la
  ptysend -- 'cd /srv && make test'
  ptysend --timeout 60 -- sudo apt-get update
  echo data | ptysend -- wc -c
  ptysend --repl-start python3 && ptysend --repl-eval '1 + 1' && ptysend --repl-close
  ptysend --status                  # free (0) or busy (75)? what holds it
  ptysend --history && ptysend --output   # what the user ran last, and what it printed
  ptysend --screen                  # refused with 75? see what the user is doing
  ptysend --notify 'please quit less, I would like to run the tests'
  ptysend --wait-free 2m -- make test
  ptysend --job web -- npm run dev && ptysend --job-wait web --until 'Local:'`
