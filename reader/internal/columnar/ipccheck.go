package columnar

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Arrow IPC has no checksums, and arrow-go trusts the counts in its
// flatbuffer metadata: a corrupt vector length in a schema makes it call
// make() with billions of elements, and a corrupt compressed-buffer header
// makes it allocate whatever that header says. Both kill the process (out
// of memory is not a panic; FuzzArrow found them). This file checks every
// vector length of the metadata against the bytes that hold it before
// arrow-go reads it, and caps single Arrow allocations.

// maxArrowAlloc bounds one Arrow buffer. Batches of 64Ki rows need a few MB;
// only a corrupt header asks for more than a GiB.
const maxArrowAlloc = 1 << 30

// cappedAlloc refuses absurd allocations by panicking with an error, which
// the readers recover into an ErrFormat naming the file.
type cappedAlloc struct{ memory.Allocator }

func (a cappedAlloc) check(n int) {
	if n < 0 || n > maxArrowAlloc {
		panic(fmt.Errorf("an Arrow buffer of %d bytes (corrupt length?)", n))
	}
}

func (a cappedAlloc) Allocate(n int) []byte { a.check(n); return a.Allocator.Allocate(n) }

func (a cappedAlloc) Reallocate(n int, b []byte) []byte {
	a.check(n)
	return a.Allocator.Reallocate(n, b)
}

func alloc() memory.Allocator { return cappedAlloc{ArrowMem} }

var errFlatbuf = errors.New("corrupt IPC metadata")

// maxIPCMeta is arrow-go's default limit on one message's metadata.
const maxIPCMeta = 64 << 20

// fbuf reads a flatbuffer, checking every offset it follows.
type fbuf []byte

func (b fbuf) u32(at int) (int, error) {
	if at < 0 || at+4 > len(b) {
		return 0, errFlatbuf
	}
	return int(binary.LittleEndian.Uint32(b[at:])), nil
}

func (b fbuf) u16(at int) (int, error) {
	if at < 0 || at+2 > len(b) {
		return 0, errFlatbuf
	}
	return int(binary.LittleEndian.Uint16(b[at:])), nil
}

// Field returns the position of field slot of the table at t, or -1 when
// the field is absent.
func (b fbuf) Field(t, slot int) (int, error) {
	so, err := b.u32(t)
	if err != nil {
		return 0, err
	}
	vt := t - int(int32(so))
	vsize, err := b.u16(vt)
	if err != nil {
		return 0, err
	}
	at := 4 + 2*slot
	if at+2 > vsize {
		return -1, nil
	}
	off, err := b.u16(vt + at)
	if err != nil || off == 0 {
		return -1, err
	}
	if t+off >= len(b) {
		return 0, errFlatbuf
	}
	return t + off, nil
}

// ref follows the offset stored in field slot of table t: the position of a
// sub-table, vector or string, or -1 when absent.
func (b fbuf) ref(t, slot int) (int, error) {
	p, err := b.Field(t, slot)
	if err != nil || p < 0 {
		return p, err
	}
	off, err := b.u32(p)
	if err != nil {
		return 0, err
	}
	if p+off >= len(b) {
		return 0, errFlatbuf
	}
	return p + off, nil
}

// vector checks the vector in field slot of table t, of elements of size
// bytes, and returns its start and length (-1, 0 when absent).
func (b fbuf) vector(t, slot, size int) (int, int, error) {
	v, err := b.ref(t, slot)
	if err != nil || v < 0 {
		return -1, 0, err
	}
	n, err := b.u32(v)
	if err != nil {
		return 0, 0, err
	}
	if n > (len(b)-v-4)/size {
		return 0, 0, errFlatbuf
	}
	return v + 4, n, nil
}

// tables checks a vector of tables and calls f with each.
func (b fbuf) tables(t, slot int, f func(int) error) error {
	v, n, err := b.vector(t, slot, 4)
	if err != nil || v < 0 {
		return err
	}
	for i := range n {
		e := v + 4*i
		off, err := b.u32(e)
		if err != nil {
			return err
		}
		if err := f(e + off); err != nil {
			return err
		}
	}
	return nil
}

func (b fbuf) keyValues(t, slot int) error {
	_, _, err := b.vector(t, slot, 4)
	return err
}

const (
	fbTypeUnion    = 14
	maxFieldDepth  = 64
	headerSchema   = 1
	headerDict     = 2
	headerRecBatch = 3
)

func (b fbuf) checkField(t, depth int) error {
	if depth > maxFieldDepth {
		return errFlatbuf
	}
	if err := b.keyValues(t, 6); err != nil {
		return err
	}
	if p, err := b.Field(t, 2); err != nil {
		return err
	} else if p >= 0 && b[p] == fbTypeUnion {
		u, err := b.ref(t, 3)
		if err != nil {
			return err
		}
		if u >= 0 {
			if _, _, err := b.vector(u, 1, 4); err != nil {
				return err
			}
		}
	}
	return b.tables(t, 5, func(c int) error { return b.checkField(c, depth+1) })
}

func (b fbuf) checkSchema(t int) error {
	if err := b.keyValues(t, 2); err != nil {
		return err
	}
	if _, _, err := b.vector(t, 3, 8); err != nil {
		return err
	}
	return b.tables(t, 1, func(f int) error { return b.checkField(f, 0) })
}

func (b fbuf) checkRecordBatch(t int) error {
	for _, v := range [...]struct{ slot, size int }{{1, 16}, {2, 16}, {4, 8}} {
		if _, _, err := b.vector(t, v.slot, v.size); err != nil {
			return err
		}
	}
	return nil
}

// checkMessage checks an IPC Message flatbuffer and returns its body length.
func checkMessage(meta []byte) (body int64, err error) {
	b := fbuf(meta)
	root, err := b.u32(0)
	if err != nil {
		return 0, err
	}
	if err := b.keyValues(root, 4); err != nil {
		return 0, err
	}
	if p, err := b.Field(root, 3); err != nil {
		return 0, err
	} else if p >= 0 {
		if p+8 > len(b) {
			return 0, errFlatbuf
		}
		body = int64(binary.LittleEndian.Uint64(b[p:]))
	}
	ht, err := b.Field(root, 1)
	if err != nil || ht < 0 {
		return body, err
	}
	h, err := b.ref(root, 2)
	if err != nil || h < 0 {
		return body, err
	}
	switch b[ht] {
	case headerSchema:
		err = b.checkSchema(h)
	case headerRecBatch:
		err = b.checkRecordBatch(h)
	case headerDict:
		var rb int
		if rb, err = b.ref(h, 1); err == nil && rb >= 0 {
			err = b.checkRecordBatch(rb)
		}
	}
	return body, err
}

// ipcBlock is a Block of an IPC file footer.
type ipcBlock struct {
	offset int64
	meta   int32
	body   int64
}

// checkFooter checks an IPC file footer and returns its record batch and
// dictionary blocks.
func checkFooter(buf []byte) (dicts, recs []ipcBlock, err error) {
	b := fbuf(buf)
	root, err := b.u32(0)
	if err != nil {
		return nil, nil, err
	}
	if err := b.keyValues(root, 4); err != nil {
		return nil, nil, err
	}
	if sc, err := b.ref(root, 1); err != nil {
		return nil, nil, err
	} else if sc >= 0 {
		if err := b.checkSchema(sc); err != nil {
			return nil, nil, err
		}
	}
	blocks := func(slot int) ([]ipcBlock, error) {
		v, n, err := b.vector(root, slot, 24)
		if err != nil || v < 0 {
			return nil, err
		}
		out := make([]ipcBlock, n)
		for i := range out {
			e := buf[v+24*i:]
			out[i] = ipcBlock{
				offset: int64(binary.LittleEndian.Uint64(e)),
				meta:   int32(binary.LittleEndian.Uint32(e[8:])),
				body:   int64(binary.LittleEndian.Uint64(e[16:])),
			}
		}
		return out, nil
	}
	if dicts, err = blocks(2); err != nil {
		return nil, nil, err
	}
	recs, err = blocks(3)
	return dicts, recs, err
}

// checkIPCFile checks the footer of the IPC file in r (size bytes) and the
// metadata of its dictionary batches, and returns its record batch blocks,
// whose metadata checkBlock checks as each is read. Inconsistencies it does
// not need to look at are left for arrow-go to report.
func checkIPCFile(r io.ReaderAt, size int64) ([]ipcBlock, error) {
	const tail = 10 // int32 footer length + "ARROW1"
	if size < tail+8 {
		return nil, nil
	}
	var t [tail]byte
	if _, err := r.ReadAt(t[:], size-tail); err != nil {
		return nil, err
	}
	n := int64(binary.LittleEndian.Uint32(t[:4]))
	if n <= 0 || n > size-tail-8 {
		return nil, nil // arrow-go reports it
	}
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, size-tail-n); err != nil {
		return nil, err
	}
	dicts, recs, err := checkFooter(buf)
	if err != nil {
		return nil, fmt.Errorf("footer: %w", err)
	}
	for i, d := range dicts {
		if err := checkBlock(r, size, d); err != nil {
			return nil, fmt.Errorf("dictionary %d: %w", i, err)
		}
	}
	return recs, nil
}

// checkBlock checks the metadata of the message a footer block points to.
func checkBlock(r io.ReaderAt, size int64, blk ipcBlock) error {
	if blk.offset < 0 || blk.meta < 8 || blk.meta > maxIPCMeta || blk.offset+int64(blk.meta) > size {
		return nil // arrow-go's own block checks report these
	}
	buf := make([]byte, blk.meta)
	if _, err := r.ReadAt(buf, blk.offset); err != nil {
		return err
	}
	if binary.LittleEndian.Uint32(buf) == 0xffffffff {
		buf = buf[8:]
	} else {
		buf = buf[4:]
	}
	_, err := checkMessage(buf)
	return err
}

// checkedStream passes an IPC stream through, checking the metadata of each
// message before the ipc reader sees it.
type checkedStream struct {
	r       io.Reader
	pending []byte // checked bytes not yet returned
	body    int64  // bytes of the current message body still to pass
	done    bool   // end-of-stream marker seen: pass the rest through
	err     error
}

func (c *checkedStream) Read(p []byte) (int, error) {
	for len(c.pending) == 0 {
		switch {
		case c.err != nil:
			return 0, c.err
		case c.done:
			return c.r.Read(p)
		case c.body > 0:
			if int64(len(p)) > c.body {
				p = p[:c.body]
			}
			n, err := c.r.Read(p)
			c.body -= int64(n)
			return n, err
		}
		c.Next()
	}
	n := copy(p, c.pending)
	c.pending = c.pending[n:]
	return n, nil
}

// Next reads and checks the next message's framing and metadata.
func (c *checkedStream) Next() {
	var head [8]byte
	n, err := io.ReadFull(c.r, head[:4])
	if err != nil {
		c.pending, c.err = head[:n], err
		if err == io.ErrUnexpectedEOF {
			c.err = io.EOF // let the ipc reader say it is truncated
		}
		return
	}
	hl := 4
	if binary.LittleEndian.Uint32(head[:4]) == 0xffffffff {
		if n, err := io.ReadFull(c.r, head[4:8]); err != nil {
			c.pending, c.err = head[:4+n], io.EOF
			return
		}
		hl = 8
	}
	ml := int32(binary.LittleEndian.Uint32(head[hl-4 : hl]))
	switch {
	case ml > maxIPCMeta:
		// arrow-go's stream reader does not apply its own metadata limit
		// and would allocate this much
		c.err = fmt.Errorf("message metadata of %d bytes: %w", ml, errFlatbuf)
		return
	case ml <= 0:
		// end of stream, or a length the ipc reader rejects itself
		c.pending, c.done = head[:hl], true
		return
	}
	buf := make([]byte, hl+int(ml))
	copy(buf, head[:hl])
	if n, err := io.ReadFull(c.r, buf[hl:]); err != nil {
		c.pending, c.err = buf[:hl+n], io.EOF
		return
	}
	body, err := checkMessage(buf[hl:])
	if err != nil {
		c.err = err
		return
	}
	c.pending, c.body = buf, body
}

// checkArrowSchema checks the Arrow schema a Parquet writer may store in the
// file's metadata (base64 of an IPC schema message), which originSchema
// parses.
func checkArrowSchema(v *string) error {
	if v == nil {
		return nil
	}
	var dec []byte
	var err error
	if len(*v)%4 == 0 { // decoded as originSchema does
		dec, err = base64.StdEncoding.DecodeString(*v)
	}
	if len(dec) == 0 || err != nil {
		if dec, err = base64.RawStdEncoding.DecodeString(*v); err != nil {
			return nil // originSchema reports it
		}
	}
	_, err = io.Copy(io.Discard, &checkedStream{r: bytes.NewReader(dec)})
	return err
}
