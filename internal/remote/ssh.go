package remote

import (
	"os"
	"os/exec"
	"strings"
)

// SSHCommand is the ssh command line the human's connections use: PTYBRIDGE_SSH split at
// spaces (no quoting: for options such as -i KEY -p PORT -F CONFIG), else ssh. The human's
// ~/.ssh/config, keys, agent and known_hosts apply as to any ssh.
func SSHCommand() []string {
	if words := strings.Fields(os.Getenv("PTYBRIDGE_SSH")); len(words) > 0 {
		return words
	}
	return []string{"ssh"}
}

// Command is ssh over the master: options, then the destination and the remote words (words
// that every login shell reads alike: see SafeWord).
func (r *Record) Command(options []string, words ...string) *exec.Cmd {
	args := append(append([]string{}, r.SSH[1:]...), "-S", r.Socket)
	args = append(append(args, options...), r.Dest)
	if len(words) > 0 {
		args = append(append(args, "--"), words...)
	}
	return exec.Command(r.SSH[0], args...)
}

// OverMaster are the options of a call that must go over the master or not at all: ssh falls
// back to a connection of its own when the control socket does not answer, which would ask for a
// password nobody sees; its proxy command that fails at once forbids that. noStdin adds -n.
func OverMaster(noStdin bool) []string {
	options := []string{"-T", "-q", "-o", "ControlMaster=no", "-o", "BatchMode=yes", "-o", "ProxyCommand=false"}
	if noStdin {
		options = append(options, "-n")
	}
	return options
}

// MasterAlive asks the master whether it runs (ssh -O check).
func (r *Record) MasterAlive() bool {
	if _, err := os.Stat(r.Socket); err != nil {
		return false
	}
	return r.Command([]string{"-O", "check"}).Run() == nil
}

// CloseMaster ends the master (ssh -O exit); its socket goes with it.
func (r *Record) CloseMaster() {
	r.Command([]string{"-O", "exit"}).Run()
	os.Remove(r.Socket)
}

// SafeWord says whether s reads as itself in every login shell ssh may hand a remote command to
// (sh, bash, zsh, fish, tcsh), unquoted.
func SafeWord(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("/._-+=,:@", c)) {
			return false
		}
	}
	return true
}
