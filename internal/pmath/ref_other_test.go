//go:build !amd64 || amd64.v3

package pmath

func stdlibIsReference() bool { return false }
