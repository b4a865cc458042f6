package platform

import (
	"os/user"
	"strconv"
	"strings"
	"testing"
)

func TestThePasswdEntrysFields(t *testing.T) {
	passwd := `root:x:0:0:root:/root:/bin/bash
#commented:x:1000:1000::/home/c:/bin/sh
ada:x:1000:1000:Ada:/home/ada:/bin/zsh
short:x:1
bob:x:10000:10000::/home/bob:
`
	for _, c := range []struct {
		uid, field int
		want       string
	}{
		{0, 0, "root"}, {0, 6, "/bin/bash"},
		{1000, 0, "ada"}, {1000, 6, "/bin/zsh"},
		{10000, 0, "bob"}, {10000, 6, ""},
		{1, 0, ""}, {100, 6, ""},
	} {
		if got := passwdFieldIn(strings.NewReader(passwd), c.uid, c.field); got != c.want {
			t.Errorf("uid %d, field %d: got %q, want %q", c.uid, c.field, got, c.want)
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
	if got := UserName(uid); got != u.Username {
		t.Fatalf("UserName(%d) = %q, os/user says %q", uid, got, u.Username)
	}
}
