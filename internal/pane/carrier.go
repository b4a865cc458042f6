package pane

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/ptybridge/ptybridge/internal/markers"
)

// A carrier is a program in the foreground of the pane that connects the
// terminal to a shell ptysend cannot read in /proc: ssh to another host,
// su or sudo to another user, docker exec or unshare into a container.
// Whether it carries an interactive shell (which ptysend can drive
// through the terminal stream) or runs a command (busy, like any program)
// is read from its command line, and from its children where /proc shows
// them (sudo -i's shell, or the editor the human runs in it).

// CarrierUse is what a carrier's command line says it runs.
type CarrierUse int

const (
	NotCarrier     CarrierUse = iota // not a program that carries shells
	CarriesShell                     // an interactive shell at the far end
	CarriesCommand                   // a command: the pane is busy
)

// ClassifyCarrier reads a foreground program's argv.
func ClassifyCarrier(argv []string) CarrierUse {
	if len(argv) == 0 {
		return NotCarrier
	}
	name := strings.TrimPrefix(filepath.Base(argv[0]), "-")
	args := argv[1:]
	switch name {
	case "ssh", "slogin":
		return sshUse(args)
	case "mosh-client":
		return CarriesShell
	case "mosh":
		if slices.Contains(args, "--") {
			return CarriesCommand
		}
		return CarriesShell
	case "su":
		return suUse(args)
	case "sudo":
		return sudoUse(args)
	case "doas":
		return doasUse(args)
	case "docker", "podman", "nerdctl", "kubectl", "oc", "lxc", "incus", "toolbox", "distrobox",
		"systemd-nspawn", "machinectl", "chroot", "unshare", "nsenter":
		return tailUse(name, args)
	}
	return NotCarrier
}

// takesArg lists, per program, the short options that take an argument.
const (
	sshArgOpts  = "BbcDEeFIiJLlmOoPpQRSWw"
	suArgOpts   = "sgGwc"
	sudoArgOpts = "ugpCDrtTURh"
	doasArgOpts = "uC"
)

// positionals splits args at the first word that is not an option (or
// after "--"), given the short options that take an argument and the long
// ones that do (as "--name").
func positionals(args []string, shortArg string, longArg []string) (opts []string, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return opts, args[i+1:]
		case strings.HasPrefix(a, "--"):
			opts = append(opts, a)
			if !strings.Contains(a, "=") && slices.Contains(longArg, a) && i+1 < len(args) {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			opts = append(opts, a)
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(shortArg, a[j]) >= 0 {
					if j == len(a)-1 && i+1 < len(args) {
						i++
					}
					break
				}
			}
		default:
			return opts, args[i:]
		}
	}
	return opts, nil
}

// hasShort reports whether one of the option words sets flag c.
func hasShort(opts []string, c byte, shortArg string) bool {
	for _, o := range opts {
		if strings.HasPrefix(o, "--") || !strings.HasPrefix(o, "-") {
			continue
		}
		for j := 1; j < len(o); j++ {
			if o[j] == c {
				return true
			}
			if strings.IndexByte(shortArg, o[j]) >= 0 {
				break
			}
		}
	}
	return false
}

func sshUse(args []string) CarrierUse {
	opts, rest := positionals(args, sshArgOpts, nil)
	if len(rest) != 1 || hasShort(opts, 'N', sshArgOpts) || hasShort(opts, 'W', sshArgOpts) ||
		hasShort(opts, 'f', sshArgOpts) || hasShort(opts, 'O', sshArgOpts) || hasShort(opts, 's', sshArgOpts) {
		return CarriesCommand
	}
	return CarriesShell
}

func suUse(args []string) CarrierUse {
	opts, _ := positionals(args, suArgOpts, []string{"--shell", "--group", "--supp-group", "--whitelist-environment"})
	for _, o := range opts {
		if o == "--command" || strings.HasPrefix(o, "--command=") || o == "--session-command" ||
			strings.HasPrefix(o, "--session-command=") {
			return CarriesCommand
		}
	}
	if hasShort(opts, 'c', suArgOpts) {
		return CarriesCommand
	}
	return CarriesShell
}

func sudoUse(args []string) CarrierUse {
	opts, rest := positionals(args, sudoArgOpts, []string{"--user", "--group", "--prompt", "--close-from",
		"--chdir", "--role", "--type", "--command-timeout", "--other-user", "--chroot", "--host"})
	for _, c := range []byte("elvkKV") {
		if hasShort(opts, c, sudoArgOpts) {
			return CarriesCommand
		}
	}
	if len(rest) == 0 {
		if hasShort(opts, 'i', sudoArgOpts) || hasShort(opts, 's', sudoArgOpts) ||
			slices.Contains(opts, "--login") || slices.Contains(opts, "--shell") {
			return CarriesShell
		}
		return CarriesCommand
	}
	return commandUse(rest)
}

func doasUse(args []string) CarrierUse {
	opts, rest := positionals(args, doasArgOpts, nil)
	if len(rest) == 0 {
		if hasShort(opts, 's', doasArgOpts) {
			return CarriesShell
		}
		return CarriesCommand
	}
	return commandUse(rest)
}

// commandUse is what a carrier runs when its command is cmd: a shell
// with no script nor -c, or another carrier of one, carries a shell.
func commandUse(cmd []string) CarrierUse {
	if _, ok := markers.ShellFor(cmd[0]); ok {
		if interactive(cmd) {
			return CarriesShell
		}
		return CarriesCommand
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
			if interactive(args[i:]) {
				return CarriesShell
			}
			return CarriesCommand
		}
		if !strings.HasPrefix(args[i], "-") {
			break
		}
	}
	switch name {
	case "unshare", "nsenter":
		if _, rest := positionals(args, "tSGRw", nil); len(rest) == 0 {
			return CarriesShell
		}
	case "machinectl":
		if len(args) > 0 && args[0] == "shell" && len(args) <= 2 {
			return CarriesShell
		}
	}
	return CarriesCommand
}
