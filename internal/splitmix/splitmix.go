// Package splitmix holds splitmix64's finalizer, the bit mixer of the
// fixed (never seeded) hashes whose values are part of rankeval's
// results: the resampling draws of package stats and the query digests
// of package aggregate. Changing it changes saved states' meaning.
package splitmix

// Mix64 is splitmix64's finalizer: a bijection of 64-bit words whose
// every output bit depends on every input bit.
func Mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
