//go:build !amd64.v3

package pmath

import "golang.org/x/sys/cpu"

// stdlibIsReference reports whether the standard library's functions give
// the reference bits here: amd64 code without fused products (GOAMD64 below
// v3), whose Exp takes its FMA path.
func stdlibIsReference() bool { return cpu.X86.HasFMA && cpu.X86.HasAVX }
