package scan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/rankeval/rankeval/reader/internal/batch"
)

// scanRef is what FieldScanner must find: the lines of data (the text
// after the last newline is a line too), their numbers, and their fields as
// SplitFields finds them; blank lines are left out. It stops at the first
// line of size bytes or more, which the scanner must reject.
type scanLine struct {
	n      int64
	fields [][]byte
}

func scanRef(data []byte, size int) (lines []scanLine, tooLong int64) {
	pieces := bytes.Split(data, []byte{'\n'})
	if len(pieces) > 0 && len(pieces[len(pieces)-1]) == 0 {
		pieces = pieces[:len(pieces)-1]
	}
	for i, p := range pieces {
		if len(p) >= size {
			return lines, int64(i + 1)
		}
		if f := SplitFields(p, nil); len(f) > 0 {
			lines = append(lines, scanLine{int64(i + 1), f})
		}
	}
	return lines, 0
}

func checkScan(t *testing.T, data []byte, size int, r io.Reader) {
	t.Helper()
	want, tooLong := scanRef(data, size)
	s := NewFieldScannerSize("in", r, size)
	for k := 0; s.Next(); k++ {
		if k >= len(want) {
			t.Fatalf("line %d: extra line %q", s.N, s.Buf[s.Ls:s.Le])
		}
		w := want[k]
		if s.N != w.n {
			t.Fatalf("line %d: scanner says line %d", w.n, s.N)
		}
		if s.Fields() != len(w.fields) {
			t.Fatalf("line %d: %d fields, want %d", w.n, s.Fields(), len(w.fields))
		}
		for i := range min(s.K, MaxFields) {
			if !bytes.Equal(s.Field(i), w.fields[i]) {
				t.Fatalf("line %d field %d: %q, want %q", w.n, i, s.Field(i), w.fields[i])
			}
		}
		if k == len(want)-1 && tooLong == 0 {
			defer func() {
				if s.Next() {
					t.Errorf("line %d after the last", s.N)
				}
			}()
		}
	}
	if tooLong > 0 {
		if !errors.Is(s.Err, batch.ErrSyntax) || !bytes.Contains([]byte(s.Err.Error()), fmt.Appendf(nil, "in:%d: line longer than", tooLong)) {
			t.Fatalf("error %v, want line %d too long", s.Err, tooLong)
		}
	} else if s.Err != nil {
		t.Fatal(s.Err)
	}
}

func TestFieldScanner(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 40)
	for _, tc := range []struct {
		name string
		data string
	}{
		{"empty", ""},
		{"one line", "1 Q0 d1 1 2.5 run\n"},
		{"no final newline", "1 Q0 d1 1 2.5 run\n2 Q0 d2 1 2.5 run"},
		{"crlf", "1 Q0 d1 1 2.5 run\r\n2 Q0 d2 1 2.5 run\r\n"},
		{"blank lines", "\n\n  \t\n1 Q0 d1 1 2.5 run\n\r\n\v\f\n2 0 d 1\n"},
		{"many separators", "  1\t\tQ0   d1\v1\f2.5 \r run  \n"},
		{"more than 8 fields", "a b c d e f g h i j k l\n1 2\n"},
		{"exactly 8 fields", "a b c d e f g h\n"},
		{"9 fields then newline-free end", "a b c d e f g h i"},
		{"high bytes", "\xff\x80 é\xa0 d\n"},
		{"long fields", string(long) + " " + string(long[:9]) + " " + string(long[:16]) + "\n"},
		{"line too long", "1 2\n" + string(long) + string(long) + "\n3 4\n"},
		{"last line too long", "1 2\n" + string(long) + string(long)},
		{"only spaces", "   \t  "},
		{"blank lines to a buffer's end", strings.Repeat("\n", 64) + "1 2\n" + strings.Repeat("\n", 99) + "3\n"},
		{"blank lines to a buffer's end, then too long", strings.Repeat("\n", 64) + string(long) + string(long) + "\n"},
	} {
		for _, size := range []int{64, 65, 100, 1 << 20} {
			t.Run(fmt.Sprintf("%s/buf%d", tc.name, size), func(t *testing.T) {
				checkScan(t, []byte(tc.data), size, bytes.NewReader([]byte(tc.data)))
				checkScan(t, []byte(tc.data), size, iotest.OneByteReader(bytes.NewReader([]byte(tc.data))))
			})
		}
	}
}

func TestFieldScannerReadError(t *testing.T) {
	boom := errors.New("boom")
	data := "1 Q0 d1 1 2.5 run\n2 Q0 d2 1 2.5 run\n3 Q0 d"
	s := NewFieldScannerSize("in", io.MultiReader(bytes.NewReader([]byte(data)), iotest.ErrReader(boom)), 64)
	n := 0
	for s.Next() {
		n++
	}
	if n != 2 || !errors.Is(s.Err, batch.ErrCompression) || !bytes.Contains([]byte(s.Err.Error()), []byte("in:3: boom")) {
		t.Fatalf("%d lines, error %v; want 2 lines, then in:3: boom", n, s.Err)
	}
}

func FuzzFieldScanner(f *testing.F) {
	f.Add([]byte("1 Q0 d1 1 2.5 run\n\n2 Q0 d2 1 2.5 run"), uint16(64))
	f.Add([]byte("a\tb\r\nc  d\v\n\n"), uint16(16))
	f.Fuzz(func(t *testing.T, data []byte, size uint16) {
		n := 16 + int(size%512)
		checkScan(t, data, n, bytes.NewReader(data))
		checkScan(t, data, n, iotest.HalfReader(bytes.NewReader(data)))
	})
}

// BenchmarkFieldScanner scans run lines shaped like scripts/gentrec's and
// like a ClueWeb run's, reporting lines/s.
func BenchmarkFieldScanner(b *testing.B) {
	for _, shape := range []struct{ name, format string }{
		{"gentrec", "%d Q0 D%d %d %.2f gen\n"},
		{"clueweb", "%d Q0 clueweb12-%07d %d %.4f runname\n"},
	} {
		var data bytes.Buffer
		lines := 0
		for q := range 200 {
			for d := range 1000 {
				fmt.Fprintf(&data, shape.format, 1000+q, (d*7919)%100000, d+1, float64((d*31)%2000)/100)
				lines++
			}
		}
		b.Run(shape.name, func(b *testing.B) {
			b.SetBytes(int64(data.Len()))
			for range b.N {
				s := NewFieldScanner("in", bytes.NewReader(data.Bytes()))
				n := 0
				for s.Next() {
					n += s.K
				}
				if n != 6*lines {
					b.Fatalf("%d fields", n)
				}
			}
			b.ReportMetric(float64(lines*b.N)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// TestSepMasks holds SepMasks (SSE2 assembly on amd64) to the portable
// SepMasksGo and to C's isspace, byte by byte: every byte value at every
// position of a word, and random buffers of 0 to 9 words.
func TestSepMasks(t *testing.T) {
	isspace := func(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }
	check := func(t *testing.T, src []byte) {
		t.Helper()
		n := len(src) / 64
		got, port := make([]uint64, n), make([]uint64, n)
		SepMasks(got, src)
		SepMasksGo(port, src)
		for i := range n {
			for j := range 64 {
				want := isspace(src[64*i+j])
				if g := got[i]>>j&1 == 1; g != want {
					t.Fatalf("byte %#x at %d: sepMasks says %v", src[64*i+j], 64*i+j, g)
				}
				if p := port[i]>>j&1 == 1; p != want {
					t.Fatalf("byte %#x at %d: sepMasksGo says %v", src[64*i+j], 64*i+j, p)
				}
			}
		}
	}
	t.Run("every byte everywhere", func(t *testing.T) {
		src := make([]byte, 256*64)
		for i := range src {
			src[i] = byte(i/64 + i%64) // value v at position (v - k) % 64 of word k
		}
		check(t, src)
	})
	t.Run("random", func(t *testing.T) {
		r := rand.New(rand.NewPCG(11, 12))
		for n := range 10 {
			src := make([]byte, 64*n+r.IntN(64))
			for i := range src {
				src[i] = []byte{' ', '\t', '\n', '\v', '\f', '\r', 0, 8, 14, 0x1f, 0x21, 0x80, 0x89, 0xa0, 0xff, 'a', '0'}[r.IntN(17)]
			}
			check(t, src)
		}
	})
}

// BenchmarkSepMasks marks the separators of 1 MiB of a TREC run.
func BenchmarkSepMasks(b *testing.B) {
	var data bytes.Buffer
	for i := 0; data.Len() < 1<<20; i++ {
		fmt.Fprintf(&data, "%d Q0 D%d %d %.2f gen\n", 1000+i/1000, i%1000, i%1000+1, float64(i%997)/100)
	}
	src := data.Bytes()[:1<<20]
	dst := make([]uint64, len(src)/64)
	for _, impl := range []struct {
		name string
		f    func([]uint64, []byte)
	}{{"sepMasks", SepMasks}, {"portable", SepMasksGo}} {
		b.Run(impl.name, func(b *testing.B) {
			for b.Loop() {
				impl.f(dst, src)
			}
			b.SetBytes(int64(len(src)))
		})
	}
}
