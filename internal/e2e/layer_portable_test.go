//go:build portable

package e2e

const portable = true
