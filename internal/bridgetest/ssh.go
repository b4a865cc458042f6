package bridgetest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

// SSHServer is an OpenSSH server on a free port of localhost, with its
// own host key, letting in the key pair it made: the far end of the far
// mode's tests and benchmark. It needs root (sshd switches users) and
// sshd installed (scripts/test-deps-far).
type SSHServer struct {
	Port int
	Key  string // the client's private key
	dir  string
	cmd  *exec.Cmd
	logs logBuffer
}

type logBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	return len(p), nil
}

// StartSSHD starts sshd; extraConfig lines are added to its configuration.
func StartSSHD(extraConfig string) (*SSHServer, error) {
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		sshd = "/usr/sbin/sshd"
	}
	if _, err := os.Stat(sshd); err != nil {
		return nil, fmt.Errorf("sshd is not installed: run scripts/test-deps-far as root (.ci/run does)")
	}
	// sshd checks that the files it reads as the user are not writable
	// by others: a directory of its own, readable by the far user.
	dir, err := os.MkdirTemp("/tmp", "ptbssh")
	if err != nil {
		return nil, err
	}
	s := &SSHServer{dir: dir, Key: filepath.Join(dir, "client")}
	fail := func(err error) (*SSHServer, error) {
		s.Close()
		return nil, err
	}
	os.Chmod(dir, 0o755)
	for _, k := range []string{"host", "client"} {
		out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", filepath.Join(dir, k)).CombinedOutput()
		if err != nil {
			return fail(fmt.Errorf("ssh-keygen: %v: %s", err, out))
		}
	}
	pub, _ := os.ReadFile(filepath.Join(dir, "client.pub"))
	os.WriteFile(filepath.Join(dir, "authorized_keys"), pub, 0o644)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fail(err)
	}
	s.Port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	config := fmt.Sprintf("Port %d\nListenAddress 127.0.0.1\nHostKey %s\nAuthorizedKeysFile %s\nPidFile none\n"+
		"UsePAM no\nStrictModes no\nKbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n"+
		"PrintMotd no\nPrintLastLog no\nBanner none\nAcceptEnv LANG\n%s",
		s.Port, filepath.Join(dir, "host"), filepath.Join(dir, "authorized_keys"), extraConfig)
	os.WriteFile(filepath.Join(dir, "sshd_config"), []byte(config), 0o644)
	os.MkdirAll("/run/sshd", 0o755)
	s.cmd = exec.Command(sshd, "-D", "-e", "-f", filepath.Join(dir, "sshd_config"))
	s.cmd.Stdout, s.cmd.Stderr = &s.logs, &s.logs
	if err := s.cmd.Start(); err != nil {
		return fail(fmt.Errorf("starting sshd: %v", err))
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.Port))
		if err == nil {
			c.Close()
			return s, nil
		}
		if time.Now().After(deadline) {
			return fail(fmt.Errorf("sshd did not listen on port %d: %s", s.Port, s.Logs()))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Command is the ssh command line that logs in as user.
func (s *SSHServer) Command(user string) string {
	return fmt.Sprintf("ssh -q -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -i %s -p %d %s@127.0.0.1",
		s.Key, s.Port, user)
}

// Logs is what sshd said.
func (s *SSHServer) Logs() string {
	s.logs.mu.Lock()
	defer s.logs.mu.Unlock()
	return string(s.logs.buf)
}

// Close stops sshd and removes its files.
func (s *SSHServer) Close() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
	os.RemoveAll(s.dir)
}
