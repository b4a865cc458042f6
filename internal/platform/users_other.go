//go:build !darwin

package platform

// UserName is the login name of user id uid, from /etc/passwd; "" when it has none.
func UserName(uid int) string { return passwdField(uid, 0) }
