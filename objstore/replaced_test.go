package objstore_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/rankeval/rankeval/internal/objtest"
	"github.com/rankeval/rankeval/objstore"
)

// TestReplacedObject: an object replaced between Open and a read is an
// error naming it, never the new object's bytes read as the old one's;
// for every scheme. Reads ask for the version Open found; a server that
// ignores that condition is still caught when the size differs.
func TestReplacedObject(t *testing.T) {
	for _, scheme := range objtest.Schemes {
		t.Run(scheme, func(t *testing.T) {
			for _, tc := range []struct {
				name  string
				size  int
				fault objtest.Fault
			}{
				{"longer", 8000, objtest.Healthy}, {"shorter", 3000, objtest.Healthy}, {"same size", 5000, objtest.Healthy},
				{"longer, conditions ignored", 8000, objtest.IgnoreConditions},
				{"shorter, conditions ignored", 3000, objtest.IgnoreConditions},
			} {
				t.Run(tc.name, func(t *testing.T) {
					f := &objtest.Fake{Scheme: scheme, Objects: map[string][]byte{"log.parquet": bytes.Repeat([]byte("a"), 5000)}, Fault: tc.fault}
					objtest.StartFake(t, f)
					o, err := objstore.Open(context.Background(), f.Object("log.parquet"))
					if err != nil {
						t.Fatal(err)
					}
					f.Put("log.parquet", bytes.Repeat([]byte("b"), tc.size))
					p := make([]byte, 100)
					n, err := o.ReadAt(p, 1000)
					want := f.Object("log.parquet") + ": the object changed after it was opened (replaced while read?)"
					if !errors.Is(err, objstore.ErrSize) || err.Error() != want {
						t.Fatalf("ReadAt after replacement: %d bytes %q, %v; want %q", n, p[:10], err, want)
					}
					r, err := o.Stream()
					if err == nil {
						var all []byte
						all, err = io.ReadAll(r)
						r.Close()
						if err == nil {
							t.Fatalf("Stream after replacement: %d bytes %q..., no error", len(all), all[:min(10, len(all))])
						}
					}
					if !errors.Is(err, objstore.ErrSize) {
						t.Fatalf("Stream after replacement: %v, want ErrSize", err)
					}
				})
			}
		})
	}
}
