// Package pmath holds the elementary functions whose bits rankeval's numbers
// depend on, computed the same way on every architecture and instruction set.
//
// The standard library's Log, Exp and Exp2 are assembly on some architectures
// and pure Go on others, amd64's Exp takes a fused path on processors with
// FMA, and the compiler may fuse x*y + z into one instruction on arm64,
// ppc64le, s390x, riscv64 and under GOAMD64=v3, each giving other last bits.
// The functions here round every product that is added (float64(x*y) + z) and
// use math.FMA only where amd64's own code fuses, so a value is the same bits
// on every machine: the bits that today's amd64 build computes (Log as its
// assembly, Exp as its FMA path, the others as their pure Go code on amd64).
// TestAgainstAMD64 holds them to values recorded on amd64.
//
// The algorithms and constants are the Go standard library's (from FreeBSD's
// msun and Naoki Shibata's SLEEF), under the license in LICENSE-go.
package pmath

import "math"

// invalid returns the NaN of an invalid operation as amd64 gives it (sign
// set, quiet, no payload: C prints it "-nan"), for an argument outside a
// function's domain, as C's libm on amd64 returns it; math returns an
// unsigned NaN there. A NaN argument is returned as it is.
func invalid() float64 { return math.Float64frombits(0xfff8000000000000) }
