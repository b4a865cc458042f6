//go:build !darwin

package platform

import (
	"bufio"
	"os"
	"os/user"
	"strconv"
	"strings"
	"testing"
)

func TestUserNameIsThePasswdEntrysName(t *testing.T) {
	passwd := `root:x:0:0:root:/root:/bin/bash
#commented:x:1000:1000::/home/c:/bin/sh
ada:x:1000:1000:Ada:/home/ada:/bin/zsh
short:x
bob:x:10000:10000::/home/bob:/bin/sh
`
	for uid, want := range map[int]string{0: "root", 1000: "ada", 10000: "bob", 1: "", 100: ""} {
		if got := userNameIn(bufio.NewScanner(strings.NewReader(passwd)), uid); got != want {
			t.Errorf("uid %d: got %q, want %q", uid, got, want)
		}
	}
}

// What os/user says of us, where it reads the same file (a static build's).
func TestUserNameAgreesWithOSUser(t *testing.T) {
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	if _, err := os.Stat("/etc/passwd"); err != nil {
		t.Fatal(err)
	}
	if got := UserName(uid); got != u.Username {
		t.Fatalf("UserName(%d) = %q, os/user says %q", uid, got, u.Username)
	}
}
