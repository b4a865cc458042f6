package platform

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"
)

// The user database as /etc/passwd has it: a user's name and login shell. It is read here, not with
// os/user, which in a cgo build (go install on a machine with a C compiler) links libc and makes
// every ptysend a dynamic program, ~1.5 ms slower to start; a static build's os/user reads the
// same file. macOS keeps its users in Directory Services: there UserName asks os/user first
// (users_darwin.go), which needs no cgo on macOS.

// LoginShellOf is user uid's login shell in /etc/passwd; "" when it has none.
func LoginShellOf(uid int) string { return passwdField(uid, 6) }

// passwdField is field i of uid's line of /etc/passwd (name:password:uid:gid:gecos:home:shell),
// "" when there is none.
func passwdField(uid, i int) string {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return ""
	}
	defer f.Close()
	return passwdFieldIn(f, uid, i)
}

func passwdFieldIn(passwd io.Reader, uid, i int) string {
	want := strconv.Itoa(uid)
	lines := bufio.NewScanner(passwd)
	for lines.Scan() {
		fields := strings.Split(lines.Text(), ":")
		if len(fields) == 7 && fields[2] == want && fields[0] != "" && !strings.HasPrefix(fields[0], "#") {
			return fields[i]
		}
	}
	return ""
}
