package batch

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// fakeUnits is a UnitDecoder of made-up units: unit u has u%4 batches of
// 1 + u%3 rows, whose positions say which unit and batch they came from;
// the units in bad fail after their batches. Decoding takes a random
// moment, so the goroutines finish out of turn.
type fakeUnits struct {
	bad map[int]bool
	rng *rand.Rand
}

func (f *fakeUnits) Close() {}

func (f *fakeUnits) Decode(u int, out *BatchOut[int]) (int, error) {
	for k := range u % 4 {
		if f.rng.IntN(4) == 0 {
			time.Sleep(time.Duration(f.rng.IntN(50)) * time.Microsecond)
		}
		b := out.Get()
		if b == nil {
			return 0, ErrStopped
		}
		for i := range 1 + u%3 {
			b.Pos = append(b.Pos, int64(u*100+k*10+i))
			b.N++
		}
		if !out.Put(b) {
			return 0, ErrStopped
		}
	}
	if f.bad[u] {
		return 0, fmt.Errorf("unit %d is bad", u)
	}
	return -u, nil
}

// startFake starts an ordered decoder of n fake units on k goroutines;
// emitted counts the units the producer has handed out.
func startFake(n, k int, bad map[int]bool, emitted *atomic.Int32, seen *[]string) *Ordered[int, int] {
	decs := make([]UnitDecoder[int, int], k)
	for w := range decs {
		decs[w] = &fakeUnits{bad: bad, rng: rand.New(rand.NewPCG(uint64(w), 3))}
	}
	return StartOrdered(OrderedConfig[int, int]{
		Produce: func(emit func(int) bool) error {
			for u := range n {
				emitted.Add(1)
				if !emit(u) {
					return nil
				}
			}
			return errors.New("read error after the last unit")
		},
		Shape: &Batch{Source: "fake"},
		Begin: func(seq int) { *seen = append(*seen, fmt.Sprintf("begin %d", seq)) },
		End:   func(seq, e int) { *seen = append(*seen, fmt.Sprintf("end %d %d", seq, e)) },
	}, decs)
}

// TestOrdered: batches come in unit order whatever the number of
// goroutines, the hooks run in that order, and the error reported is the
// first in input order (a bad unit's, or the producer's after every unit).
func TestOrdered(t *testing.T) {
	const n = 200
	for _, bad := range []map[int]bool{nil, {37: true}, {150: true, 41: true, 90: true}} {
		var want []int64
		var wantSeen []string
		first := n
		for u := range n {
			if bad[u] {
				first = min(first, u)
			}
		}
		for u := range min(first+1, n) {
			wantSeen = append(wantSeen, fmt.Sprintf("begin %d", u))
			for k := range u % 4 {
				for i := range 1 + u%3 {
					want = append(want, int64(u*100+k*10+i))
				}
			}
			if u < first {
				wantSeen = append(wantSeen, fmt.Sprintf("end %d %d", u, -u))
			}
		}
		if first == n {
			wantSeen = append(wantSeen, fmt.Sprintf("begin %d", n))
		}
		wantErr := fmt.Sprintf("unit %d is bad", first)
		if first == n {
			wantErr = "read error after the last unit"
		}
		for _, k := range []int{1, 2, 3, 8} {
			t.Run(fmt.Sprintf("bad=%v/decoders=%d", bad, k), func(t *testing.T) {
				var emitted atomic.Int32
				var seen []string
				o := startFake(n, k, bad, &emitted, &seen)
				defer o.Close()
				var got []int64
				for o.Next() {
					got = append(got, o.Batch().Pos...)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("positions\n%v\nwant\n%v", got, want)
				}
				if o.Err() == nil || o.Err().Error() != wantErr {
					t.Fatalf("error %v, want %q", o.Err(), wantErr)
				}
				if fmt.Sprint(seen) != fmt.Sprint(wantSeen) {
					t.Fatalf("hooks ran\n%v\nwant\n%v", seen, wantSeen)
				}
			})
		}
	}
}

// TestOrderedBounded: a consumer that takes nothing holds each decoder to
// one unit waiting, one being decoded and as many decoded as its output
// holds (batches or ends of units: BatchesPerDecoder), and the producer to
// one more in its hand.
func TestOrderedBounded(t *testing.T) {
	for _, k := range []int{1, 3} {
		var emitted atomic.Int32
		var seen []string
		o := startFake(1000, k, nil, &emitted, &seen)
		time.Sleep(50 * time.Millisecond)
		if e := emitted.Load(); e > int32(k*(2+BatchesPerDecoder)+1) {
			t.Errorf("%d decoders: %d units handed out before any was taken", k, e)
		}
		o.Close()
	}
}

// TestOrderedClose closes an ordered decoder at every point of a read and
// checks that every goroutine has ended when Close returns.
func TestOrderedClose(t *testing.T) {
	before := runtime.NumGoroutine()
	for stopAt := range 60 {
		for _, k := range []int{1, 2, 8} {
			var emitted atomic.Int32
			var seen []string
			o := startFake(100, k, map[int]bool{70: true}, &emitted, &seen)
			for i := 0; i < stopAt && o.Next(); i++ {
			}
			o.Close()
			if live := LiveDecoders.Load(); live != 0 {
				t.Fatalf("stop at %d, %d decoders: %d goroutines still working after Close", stopAt, k, live)
			}
			if o.Next() {
				t.Fatal("Next after Close")
			}
		}
	}
	// the goroutines have returned; give them a moment to be gone
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), before)
}
