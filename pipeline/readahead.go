package pipeline

import (
	"sync"

	"github.com/rankeval/rankeval/reader"
)

// readAhead decodes an input's next batch in its own goroutine while the
// producer groups and validates the current one, so parsing (the costliest
// stage) overlaps the rest. Readers reuse their batch, so each is copied
// into one of a few spares: a memcpy per row, against a parse per row.
type readAhead struct {
	r     reader.Reader
	ready chan *reader.Batch
	free  chan *reader.Batch
	cur   *reader.Batch
	err   error // set before ready is closed
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// readAheadBatches is the number of batches of an input in memory at once:
// the one being grouped, one ready, one being filled.
const readAheadBatches = 3

func newReadAhead(r reader.Reader) *readAhead {
	ra := &readAhead{r: r, ready: make(chan *reader.Batch, readAheadBatches-1),
		free: make(chan *reader.Batch, readAheadBatches), stop: make(chan struct{}), done: make(chan struct{})}
	for range readAheadBatches {
		ra.free <- &reader.Batch{}
	}
	go ra.loop()
	return ra
}

func (ra *readAhead) loop() {
	defer close(ra.done)
	defer close(ra.ready)
	filler, fills := ra.r.(reader.Filler)
	for {
		// A reader that cannot fill our batch decodes into its own first,
		// while we may still wait for a spare, as before NextInto existed.
		if !fills && !ra.r.Next() {
			break
		}
		var b *reader.Batch
		select {
		case b = <-ra.free:
		case <-ra.stop:
			return
		}
		if fills {
			if !filler.NextInto(b) {
				break
			}
		} else {
			copyBatch(b, ra.r.Batch())
		}
		select {
		case ra.ready <- b:
		case <-ra.stop:
			return
		}
	}
	ra.err = ra.r.Err()
}

func (ra *readAhead) Next() bool {
	if ra.cur != nil {
		ra.free <- ra.cur // free holds every batch: never blocks
		ra.cur = nil
	}
	b, ok := <-ra.ready
	ra.cur = b
	return ok
}

func (ra *readAhead) Batch() *reader.Batch { return ra.cur }

// Err is read after Next returned false, when ready is closed: the close
// orders the goroutine's write of err before this read.
func (ra *readAhead) Err() error { return ra.err }

// Close stops the goroutine, then closes the reader it was using.
func (ra *readAhead) Close() error {
	ra.once.Do(func() { close(ra.stop) })
	<-ra.done
	return ra.r.Close()
}

// copyBatch makes dst a deep copy of src, reusing dst's capacity.
func copyBatch(dst, src *reader.Batch) {
	dst.ResetLike(src)
	dst.N = src.N
	copyStrings(&dst.Query, &src.Query)
	copyStrings(&dst.Doc, &src.Doc)
	dst.Score = append(dst.Score, src.Score...)
	dst.Label = append(dst.Label, src.Label...)
	if src.Rank != nil {
		dst.Rank = append(dst.Rank, src.Rank...)
	}
	dst.Pos = append(dst.Pos, src.Pos...)
	for c := range src.Extra {
		copyStrings(&dst.Extra[c], &src.Extra[c])
	}
	for c := range src.ExtraScore {
		dst.ExtraScore[c] = append(dst.ExtraScore[c], src.ExtraScore[c]...)
	}
	for c := range src.Numbers {
		dst.Numbers[c] = append(dst.Numbers[c], src.Numbers[c]...)
	}
	for c := range src.Texts {
		copyStrings(&dst.Texts[c], &src.Texts[c])
	}
}

func copyStrings(dst, src *reader.Strings) {
	dst.Buf = append(dst.Buf[:0], src.Buf...)
	dst.Off = append(dst.Off[:0], src.Off...)
}
