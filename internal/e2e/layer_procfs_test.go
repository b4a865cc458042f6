//go:build !portable

package e2e

// portable: the binaries are built with the portable platform layer (go test -tags portable),
// the one macOS and FreeBSD run, instead of Linux's procfs.
const portable = false
