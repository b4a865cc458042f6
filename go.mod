module github.com/ptybridge/ptybridge

go 1.26.8

require (
	github.com/alecthomas/kong v1.17.0
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
)

require github.com/creack/pty v1.1.24
