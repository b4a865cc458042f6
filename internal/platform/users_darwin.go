package platform

import (
	"os/user"
	"strconv"
)

// UserName is the login name of user id uid; "" when the OS knows none. macOS's users are in
// Directory Services, not /etc/passwd: os/user asks libSystem there, which every macOS program
// links, cgo or not.
func UserName(uid int) string {
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return ""
	}
	return u.Username
}
