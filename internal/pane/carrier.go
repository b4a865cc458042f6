package pane

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// A carrier connects the terminal to a shell ptysend cannot read in
// /proc: ssh, su or sudo, docker exec or unshare. Whether it carries an
// interactive shell (driven through the terminal stream) or runs a
// command (busy) is read from its command line, and from its children
// where /proc shows them (sudo -i's shell, the editor run in it).
type CarrierUse int

const (
	NotCarrier     CarrierUse = iota // not a program that carries shells
	CarriesShell                     // an interactive shell at the far end
	CarriesCommand                   // a command: the pane is busy
)

func ClassifyCarrier(argv []string) CarrierUse {
	if len(argv) == 0 {
		return NotCarrier
	}
	name := strings.TrimPrefix(filepath.Base(argv[0]), "-")
	args := argv[1:]
	switch name {
	case "ssh", "slogin":
		flags, _, rest := parseArgs(args, "BbcDEeFIiJLlmOoPpQRSWw")
		return shellOrCommand(len(rest) == 1 && !strings.ContainsAny(flags, "NWfOs"))
	case "mosh-client":
		return CarriesShell
	case "mosh":
		return shellOrCommand(!slices.Contains(args, "--"))
	case "su":
		flags, long, _ := parseArgs(args, "sgGwc", "--shell", "--group", "--supp-group", "--whitelist-environment")
		for _, o := range long {
			if opt, _, _ := strings.Cut(o, "="); opt == "--command" || opt == "--session-command" {
				return CarriesCommand
			}
		}
		return shellOrCommand(!strings.Contains(flags, "c"))
	case "sudo":
		flags, long, rest := parseArgs(args, "ugpCDrtTURh", "--user", "--group", "--prompt", "--close-from",
			"--chdir", "--role", "--type", "--command-timeout", "--other-user", "--chroot", "--host")
		if strings.ContainsAny(flags, "elvkKV") {
			return CarriesCommand
		}
		return commandUse(rest, strings.ContainsAny(flags, "is") || slices.Contains(long, "--login") || slices.Contains(long, "--shell"))
	case "doas":
		flags, _, rest := parseArgs(args, "uC")
		return commandUse(rest, strings.Contains(flags, "s"))
	case "docker", "podman", "nerdctl", "kubectl", "oc", "lxc", "incus", "toolbox", "distrobox",
		"systemd-nspawn", "machinectl", "chroot", "unshare", "nsenter":
		return tailUse(name, args)
	}
	return NotCarrier
}

func shellOrCommand(shell bool) CarrierUse {
	if shell {
		return CarriesShell
	}
	return CarriesCommand
}

// parseArgs splits args at the first word that is not an option (or
// after "--"), given the options that take an argument: flags are the
// short options set, long the long ones.
func parseArgs(args []string, shortArg string, longArg ...string) (flags string, long, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return flags, long, args[i+1:]
		case strings.HasPrefix(a, "--"):
			long = append(long, a)
			if !strings.Contains(a, "=") && slices.Contains(longArg, a) && i+1 < len(args) {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			for j := 1; j < len(a); j++ {
				flags += a[j : j+1]
				if strings.IndexByte(shortArg, a[j]) >= 0 {
					if j == len(a)-1 && i+1 < len(args) {
						i++
					}
					break
				}
			}
		default:
			return flags, long, args[i:]
		}
	}
	return flags, long, nil
}

// commandUse is what a carrier running cmd carries: with no command, a
// shell when its options ask for one.
func commandUse(cmd []string, shellOption bool) CarrierUse {
	if len(cmd) == 0 {
		return shellOrCommand(shellOption)
	}
	if _, ok := markers.ShellFor(cmd[0]); ok {
		return shellOrCommand(interactive(cmd))
	}
	if u := ClassifyCarrier(cmd); u != NotCarrier {
		return u
	}
	return CarriesCommand
}

// tailUse reads container and namespace tools, whose own options vary
// too much to parse: the command they run is the last supported shell
// named on the line, followed by options only (no -c). unshare, nsenter
// and machinectl shell run the user's shell when given no command.
func tailUse(name string, args []string) CarrierUse {
	for i := len(args) - 1; i >= 0; i-- {
		if _, ok := markers.ShellFor(args[i]); ok {
			return shellOrCommand(interactive(args[i:]))
		}
		if !strings.HasPrefix(args[i], "-") {
			break
		}
	}
	switch name {
	case "unshare", "nsenter":
		_, _, rest := parseArgs(args, "tSGRw")
		return shellOrCommand(len(rest) == 0)
	case "machinectl":
		return shellOrCommand(len(args) > 0 && args[0] == "shell" && len(args) <= 2)
	}
	return CarriesCommand
}
