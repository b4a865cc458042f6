//go:build !darwin

package platform

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// UserName is the login name of user id uid, from /etc/passwd; "" when it has none. It is read
// here, not with os/user, which in a cgo build (go install on a machine with a C compiler) links
// libc and makes every ptysend a dynamic program, ~1.5 ms slower to start. A static build's
// os/user reads the same file.
func UserName(uid int) string {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return ""
	}
	defer f.Close()
	return userNameIn(bufio.NewScanner(f), uid)
}

// userNameIn finds uid in passwd lines: name:password:uid:...
func userNameIn(lines *bufio.Scanner, uid int) string {
	want := strconv.Itoa(uid)
	for lines.Scan() {
		fields := strings.SplitN(lines.Text(), ":", 4)
		if len(fields) == 4 && fields[2] == want && fields[0] != "" && !strings.HasPrefix(fields[0], "#") {
			return fields[0]
		}
	}
	return ""
}
