package platform

import (
	"os/user"
	"strconv"
)

// UserName is the login name of user id uid; "" when the OS knows none. os/user asks Directory
// Services through libSystem, which every macOS program links, cgo or not.
func UserName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return u.Username
	}
	return passwdField(uid, 0)
}
