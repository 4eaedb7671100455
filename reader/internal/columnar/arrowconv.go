package columnar

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// Copying Arrow arrays into a Batch: the converter, one per decoder
// goroutine, reads each requested column's array (plain, dictionary,
// decimal, any width of integer) into the batch's strings and numbers.

// converter copies the requested columns of Arrow records into a Batch.
// Each decoder goroutine has its own.
type converter struct {
	reqs    []batch.ColReq
	parts   [][2]string
	bind    []binding // for sc
	sc      *arrow.Schema
	where   func(unit int, row int64) string // names row (1-based) of unit
	scratch []byte
	cols    batch.Columns // what was asked for: MissingOK reads nulls as NaN
}

func newConverter(cols batch.Columns, parts [][2]string, where func(int, int64) string) *converter {
	return &converter{reqs: cols.Requests(), parts: parts, where: where, cols: cols}
}

// convert appends rows [lo, hi) of rec to b. unit is the record's unit and
// before the rows of that unit preceding rec, for error messages.
func (cv *converter) convert(rec arrow.RecordBatch, lo, hi int, b *batch.Batch, unit int, before int64) error {
	if sc := rec.Schema(); sc != cv.sc {
		// Resolve by name: Parquet record readers return only the selected
		// columns, IPC readers all of them.
		bind, err := bindSchema(cv.where(unit, before+1), sc, cv.reqs, cv.parts)
		if err != nil {
			return err
		}
		cv.bind, cv.sc = bind, sc
	}
	for i, r := range cv.reqs {
		bd := cv.bind[i]
		if bd.col < 0 {
			for range hi - lo {
				if bd.konst != nil {
					b.Extra[r.X].Append(bd.konst)
				} else if r.Kind == batch.FDoc {
					b.Doc.Append(nil) // an optional doc column the file lacks
				}
			}
			continue
		}
		arr := rec.Column(bd.col)
		nullsOK := r.Optional || cv.cols.MissingOK(r.Kind)
		if arr.NullN() > 0 && !nullsOK {
			for i := lo; i < hi; i++ {
				if arr.IsNull(i) {
					return cv.null(r, unit, before+int64(i)+1)
				}
			}
		}
		var err error
		switch r.Kind {
		case batch.FQuery:
			err = cv.strings(&b.Query, arr, lo, hi, r, unit, before)
		case batch.FDoc:
			if arr.NullN() > 0 {
				err = cv.text(&b.Doc, arr, lo, hi, r, unit, before)
			} else {
				err = cv.strings(&b.Doc, arr, lo, hi, r, unit, before)
			}
		case batch.FScore:
			n := len(b.Score)
			if b.Score, err = cv.floats(b.Score, arr, lo, hi); err == nil {
				err = cv.checkIntScores(arr, b.Score[n:], lo, hi, r, unit, before)
			}
		case batch.FLabel:
			b.Label, err = cv.floats(b.Label, arr, lo, hi)
		case batch.FRank:
			b.Rank, err = cv.ranks(b.Rank, arr, lo, hi, r, unit, before)
		case batch.KExtra:
			err = cv.text(&b.Extra[r.X], arr, lo, hi, r, unit, before)
		case batch.KExtraScore:
			n := len(b.ExtraScore[r.X])
			if b.ExtraScore[r.X], err = cv.floats(b.ExtraScore[r.X], arr, lo, hi); err == nil {
				err = cv.checkIntScores(arr, b.ExtraScore[r.X][n:], lo, hi, r, unit, before)
			}
		case batch.KNumber:
			b.Numbers[r.X], err = cv.floats(b.Numbers[r.X], arr, lo, hi)
		case batch.KText:
			err = cv.text(&b.Texts[r.X], arr, lo, hi, r, unit, before)
		}
		if err != nil {
			return err
		}
		if arr.NullN() > 0 && cv.cols.MissingOK(r.Kind) {
			missing(arr, lo, hi, b, r)
		}
	}
	b.N += hi - lo
	return nil
}

// missing makes NaN the values of b that rows [lo, hi) of arr, just
// appended to the score or label column r, hold where arr is null
// (batch.Columns.MissingScore, MissingLabel).
func missing(arr arrow.Array, lo, hi int, b *batch.Batch, r batch.ColReq) {
	var col []float64
	switch r.Kind {
	case batch.FScore:
		col = b.Score
	case batch.FLabel:
		col = b.Label
	default:
		col = b.ExtraScore[r.X]
	}
	col = col[len(col)-(hi-lo):]
	for i := lo; i < hi; i++ {
		if arr.IsNull(i) {
			col[i-lo] = math.NaN()
		}
	}
}

func (cv *converter) null(r batch.ColReq, unit int, row int64) error {
	if r.Kind == batch.KExtra || r.Kind == batch.KText {
		return fmt.Errorf("%s: %q (%s) is null; every row needs a value: %w", cv.where(unit, row), r.Name, r.Role(), batch.ErrValue)
	}
	return fmt.Errorf("%s: null in %q column%s: %w", cv.where(unit, row), r.Name, batch.MissingHint(r.Kind), batch.ErrValue)
}

// text appends rows [lo, hi) of arr as text, one value at a time: slice
// columns of any accepted type, and doc columns with nulls (which become
// empty ids when the doc column is optional).
func (cv *converter) text(s *batch.Strings, arr arrow.Array, lo, hi int, r batch.ColReq, unit int, before int64) error {
	for i := lo; i < hi; i++ {
		if arr.IsNull(i) {
			if r.Optional {
				s.Append(nil)
				continue
			}
			return cv.null(r, unit, before+int64(i)+1)
		}
		v, ok := arrowText(arr, i, cv.scratch[:0])
		if !ok {
			if d, isDict := arr.(*array.Dictionary); isDict && !d.Dictionary().IsNull(d.GetValueIndex(i)) {
				return fmt.Errorf("%s: dictionary index out of range in %q column: %w", cv.where(unit, before+int64(i)+1), r.Name, batch.ErrFormat)
			}
			return cv.null(r, unit, before+int64(i)+1)
		}
		cv.scratch = v[:0:cap(v)]
		s.Append(v)
		if len(s.Buf) > math.MaxInt32 {
			return fmt.Errorf("%s: %q column: %w: %w", cv.where(unit, before+int64(i)+1), r.Name, errArena, batch.ErrValue)
		}
	}
	return nil
}

// valueText is value i of arr as text: strings as they are, numbers as
// their shortest decimal text, booleans as true/false, dates as YYYY-MM-DD.
// ok is false for a null dictionary value or an index out of range.
func arrowText(arr arrow.Array, i int, scratch []byte) (_ []byte, ok bool) {
	switch a := arr.(type) {
	case *array.Dictionary:
		d, k := a.Dictionary(), a.GetValueIndex(i)
		if k < 0 || k >= d.Len() || d.IsNull(k) {
			return nil, false
		}
		return arrowText(d, k, scratch)
	case *array.Float64:
		return strconv.AppendFloat(scratch, a.Value(i), 'g', -1, 64), true
	case *array.Float32:
		return strconv.AppendFloat(scratch, float64(a.Value(i)), 'g', -1, 32), true
	case *array.Float16:
		return strconv.AppendFloat(scratch, float64(a.Value(i).Float32()), 'g', -1, 32), true
	case *array.Boolean:
		return strconv.AppendBool(scratch, a.Value(i)), true
	case *array.Date32:
		return a.Value(i).ToTime().AppendFormat(scratch, "2006-01-02"), true
	case *array.Date64:
		return a.Value(i).ToTime().AppendFormat(scratch, "2006-01-02"), true
	case *array.Decimal32:
		return append(scratch, a.Value(i).ToString(a.DataType().(arrow.DecimalType).GetScale())...), true
	case *array.Decimal64:
		return append(scratch, a.Value(i).ToString(a.DataType().(arrow.DecimalType).GetScale())...), true
	case *array.Decimal128:
		return append(scratch, a.Value(i).ToString(a.DataType().(arrow.DecimalType).GetScale())...), true
	case *array.Decimal256:
		return append(scratch, a.Value(i).ToString(a.DataType().(arrow.DecimalType).GetScale())...), true
	}
	return idText(arr, i, scratch), true
}

var errArena = errors.New("the strings of one batch exceed 2 GiB; use a smaller batch size")

// appendBulk appends strings [lo, hi) given by offsets into data, where
// data starts at offset first. Offsets are checked because IPC files carry no
// checksums and a corrupt offset must not become a slice panic downstream.
func appendBulk[O int32 | int64](s *batch.Strings, offs []O, data []byte, lo, hi int) error {
	first := offs[0]
	a, z := offs[lo]-first, offs[hi]-first
	if a < 0 || z < a || int64(z) > int64(len(data)) {
		return fmt.Errorf("string offsets out of range: %w", batch.ErrFormat)
	}
	base := int64(len(s.Buf)) - int64(a)
	if base+int64(z) > math.MaxInt32 {
		return fmt.Errorf("%w: %w", errArena, batch.ErrValue)
	}
	s.Buf = append(s.Buf, data[a:z]...)
	prev := offs[lo]
	for _, o := range offs[lo+1 : hi+1] {
		if o < prev {
			return fmt.Errorf("string offsets decrease: %w", batch.ErrFormat)
		}
		prev = o
		s.Off = append(s.Off, int32(base+int64(o-first)))
	}
	return nil
}

// appendDictStrings appends the dictionary strings the indices name: the
// fast path for dictionary-encoded id columns of Arrow IPC files.
func appendDictStrings(s *batch.Strings, idx []int32, offs []int32, data []byte) error {
	first := offs[0]
	n := int32(len(offs) - 1)
	for _, k := range idx {
		if k < 0 || k >= n {
			return fmt.Errorf("dictionary index %d out of range: %w", k, batch.ErrFormat)
		}
		a, z := offs[k]-first, offs[k+1]-first
		if a < 0 || z < a || int(z) > len(data) {
			return fmt.Errorf("string offsets out of range: %w", batch.ErrFormat)
		}
		s.Buf = append(s.Buf, data[a:z]...)
		if len(s.Buf) > math.MaxInt32 {
			return fmt.Errorf("%w: %w", errArena, batch.ErrValue)
		}
		s.Off = append(s.Off, int32(len(s.Buf)))
	}
	return nil
}

func appendSigned[T int8 | int16 | int32 | int64](s *batch.Strings, v []T) {
	for _, x := range v {
		s.Buf = strconv.AppendInt(s.Buf, int64(x), 10)
		s.Off = append(s.Off, int32(len(s.Buf)))
	}
}

func appendUnsigned[T uint8 | uint16 | uint32 | uint64](s *batch.Strings, v []T) {
	for _, x := range v {
		s.Buf = strconv.AppendUint(s.Buf, uint64(x), 10)
		s.Off = append(s.Off, int32(len(s.Buf)))
	}
}

// idText returns value i of an id column's dictionary as bytes (integers as
// decimal text, into scratch).
func idText(arr arrow.Array, i int, scratch []byte) []byte {
	switch a := arr.(type) {
	case *array.String:
		return []byte(a.Value(i))
	case *array.LargeString:
		return []byte(a.Value(i))
	case *array.StringView:
		return []byte(a.Value(i))
	case *array.Binary:
		return a.Value(i)
	case *array.LargeBinary:
		return a.Value(i)
	case *array.BinaryView:
		return a.Value(i)
	case *array.Int8:
		return strconv.AppendInt(scratch, int64(a.Value(i)), 10)
	case *array.Int16:
		return strconv.AppendInt(scratch, int64(a.Value(i)), 10)
	case *array.Int32:
		return strconv.AppendInt(scratch, int64(a.Value(i)), 10)
	case *array.Int64:
		return strconv.AppendInt(scratch, a.Value(i), 10)
	case *array.Uint8:
		return strconv.AppendUint(scratch, uint64(a.Value(i)), 10)
	case *array.Uint16:
		return strconv.AppendUint(scratch, uint64(a.Value(i)), 10)
	case *array.Uint32:
		return strconv.AppendUint(scratch, uint64(a.Value(i)), 10)
	case *array.Uint64:
		return strconv.AppendUint(scratch, a.Value(i), 10)
	}
	return nil // unreachable: checkSchema accepted the type
}

func (cv *converter) strings(s *batch.Strings, arr arrow.Array, lo, hi int, r batch.ColReq, unit int, before int64) error {
	var err error
	switch a := arr.(type) {
	case *array.String:
		err = appendBulk(s, a.ValueOffsets(), a.ValueBytes(), lo, hi)
	case *array.LargeString:
		err = appendBulk(s, a.ValueOffsets(), a.ValueBytes(), lo, hi)
	case *array.Binary:
		err = appendBulk(s, a.ValueOffsets(), a.ValueBytes(), lo, hi)
	case *array.LargeBinary:
		err = appendBulk(s, a.ValueOffsets(), a.ValueBytes(), lo, hi)
	case *array.Dictionary:
		dict := a.Dictionary()
		if ds, ok := dict.(*array.String); ok && dict.NullN() == 0 {
			if idx, ok := a.Indices().(*array.Int32); ok {
				err = appendDictStrings(s, idx.Int32Values()[lo:hi], ds.ValueOffsets(), ds.ValueBytes())
				break
			}
		}
		var scratch [20]byte
		for i := lo; i < hi; i++ {
			k := a.GetValueIndex(i)
			if k < 0 || k >= dict.Len() {
				return fmt.Errorf("%s: dictionary index %d out of range in %q column: %w", cv.where(unit, before+int64(i)+1), k, r.Name, batch.ErrFormat)
			}
			if dict.IsNull(k) {
				return cv.null(r, unit, before+int64(i)+1)
			}
			s.Append(idText(dict, k, scratch[:0]))
		}
	case *array.Int8:
		appendSigned(s, a.Int8Values()[lo:hi])
	case *array.Int16:
		appendSigned(s, a.Int16Values()[lo:hi])
	case *array.Int32:
		appendSigned(s, a.Int32Values()[lo:hi])
	case *array.Int64:
		appendSigned(s, a.Int64Values()[lo:hi])
	case *array.Uint8:
		appendUnsigned(s, a.Uint8Values()[lo:hi])
	case *array.Uint16:
		appendUnsigned(s, a.Uint16Values()[lo:hi])
	case *array.Uint32:
		appendUnsigned(s, a.Uint32Values()[lo:hi])
	case *array.Uint64:
		appendUnsigned(s, a.Uint64Values()[lo:hi])
	default: // views
		var scratch [20]byte
		for i := lo; i < hi; i++ {
			s.Append(idText(arr, i, scratch[:0]))
		}
	}
	if len(s.Buf) > math.MaxInt32 {
		err = fmt.Errorf("%w: %w", errArena, batch.ErrValue)
	}
	if err != nil {
		return fmt.Errorf("%s: %q column: %w", cv.where(unit, before+int64(lo)+1), r.Name, err)
	}
	return nil
}

func appendFloats[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32](dst []float64, v []T) []float64 {
	for _, x := range v {
		dst = append(dst, float64(x))
	}
	return dst
}

// decimalFloat converts an unscaled decimal to the float64 nearest its
// value, as parsing its decimal text would (so a decimal column and a JSON
// number give the same score). Both operands of the division are exact when
// the unscaled value has at most 53 bits and the scale at most 22, so one
// correctly rounded division does it; other values go through the text.
func decimalFloat(v interface{ ToString(int32) string }, small int64, fits bool, scale int32) float64 {
	if fits && small > -(1<<53) && small < 1<<53 && scale >= 0 && int(scale) < len(scan.Pow10) {
		return float64(small) / scan.Pow10[scale]
	}
	f, _ := strconv.ParseFloat(v.ToString(scale), 64)
	return f
}

func (cv *converter) floats(dst []float64, arr arrow.Array, lo, hi int) ([]float64, error) {
	switch a := arr.(type) {
	case *array.Float64:
		return append(dst, a.Float64Values()[lo:hi]...), nil
	case *array.Float32:
		return appendFloats(dst, a.Float32Values()[lo:hi]), nil
	case *array.Float16:
		for i := lo; i < hi; i++ {
			dst = append(dst, float64(a.Value(i).Float32()))
		}
	case *array.Int8:
		return appendFloats(dst, a.Int8Values()[lo:hi]), nil
	case *array.Int16:
		return appendFloats(dst, a.Int16Values()[lo:hi]), nil
	case *array.Int32:
		return appendFloats(dst, a.Int32Values()[lo:hi]), nil
	case *array.Int64:
		return appendFloats(dst, a.Int64Values()[lo:hi]), nil
	case *array.Uint8:
		return appendFloats(dst, a.Uint8Values()[lo:hi]), nil
	case *array.Uint16:
		return appendFloats(dst, a.Uint16Values()[lo:hi]), nil
	case *array.Uint32:
		return appendFloats(dst, a.Uint32Values()[lo:hi]), nil
	case *array.Uint64:
		return appendFloats(dst, a.Uint64Values()[lo:hi]), nil
	case *array.Boolean:
		for i := lo; i < hi; i++ {
			v := 0.0
			if a.Value(i) {
				v = 1
			}
			dst = append(dst, v)
		}
	case *array.Decimal32:
		scale := a.DataType().(arrow.DecimalType).GetScale()
		for _, v := range a.Values()[lo:hi] {
			dst = append(dst, decimalFloat(v, int64(v), true, scale))
		}
	case *array.Decimal64:
		scale := a.DataType().(arrow.DecimalType).GetScale()
		for _, v := range a.Values()[lo:hi] {
			dst = append(dst, decimalFloat(v, int64(v), true, scale))
		}
	case *array.Decimal128:
		scale := a.DataType().(arrow.DecimalType).GetScale()
		for _, v := range a.Values()[lo:hi] {
			hi, lo := v.HighBits(), v.LowBits()
			fits := hi == 0 && lo < 1<<63 || hi == -1 && lo >= 1<<63
			dst = append(dst, decimalFloat(v, int64(lo), fits, scale))
		}
	case *array.Decimal256:
		scale := a.DataType().(arrow.DecimalType).GetScale()
		for _, v := range a.Values()[lo:hi] {
			dst = append(dst, decimalFloat(v, 0, false, scale))
		}
	default:
		return dst, fmt.Errorf("unexpected array type %s: %w", arr.DataType(), batch.ErrColumn)
	}
	return dst, nil
}

func appendInts[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32](dst []int64, v []T) []int64 {
	for _, x := range v {
		dst = append(dst, int64(x))
	}
	return dst
}

// wholeFloats appends floats that are whole numbers in the range of int64;
// i is the index in v of the first that is not, or -1.
func wholeFloats[T float32 | float64](dst []int64, v []T) ([]int64, int) {
	for i, x := range v {
		f := float64(x)
		if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
			return dst, i
		}
		dst = append(dst, int64(f))
	}
	return dst, -1
}

// ranks appends rows [lo, hi) of a rank column: integers, or floats that
// are whole numbers. Ranks need not start at 1: only their order matters.
func (cv *converter) ranks(dst []int64, arr arrow.Array, lo, hi int, r batch.ColReq, unit int, before int64) ([]int64, error) {
	bad := -1
	var badV float64
	switch a := arr.(type) {
	case *array.Float64:
		v := a.Float64Values()[lo:hi]
		if dst, bad = wholeFloats(dst, v); bad >= 0 {
			badV = v[bad]
		}
	case *array.Float32:
		v := a.Float32Values()[lo:hi]
		if dst, bad = wholeFloats(dst, v); bad >= 0 {
			badV = float64(v[bad])
		}
	case *array.Float16:
		for i := lo; i < hi; i++ {
			f := float64(a.Value(i).Float32())
			if f != math.Trunc(f) || math.IsInf(f, 0) {
				bad, badV = i-lo, f
				break
			}
			dst = append(dst, int64(f)) // float16 is within ±65504
		}
	default:
		return cv.ints(dst, arr, lo, hi, unit, before)
	}
	if bad >= 0 {
		what := "must be a whole number"
		if badV == math.Trunc(badV) {
			what = "is out of range"
		}
		return dst, fmt.Errorf("%s: %q (the rank column) %s, found %v: %w",
			cv.where(unit, before+int64(lo+bad)+1), r.Name, what, badV, batch.ErrValue)
	}
	return dst, nil
}

func (cv *converter) ints(dst []int64, arr arrow.Array, lo, hi, unit int, before int64) ([]int64, error) {
	switch a := arr.(type) {
	case *array.Int8:
		return appendInts(dst, a.Int8Values()[lo:hi]), nil
	case *array.Int16:
		return appendInts(dst, a.Int16Values()[lo:hi]), nil
	case *array.Int32:
		return appendInts(dst, a.Int32Values()[lo:hi]), nil
	case *array.Int64:
		return append(dst, a.Int64Values()[lo:hi]...), nil
	case *array.Uint8:
		return appendInts(dst, a.Uint8Values()[lo:hi]), nil
	case *array.Uint16:
		return appendInts(dst, a.Uint16Values()[lo:hi]), nil
	case *array.Uint32:
		return appendInts(dst, a.Uint32Values()[lo:hi]), nil
	case *array.Uint64:
		for i, v := range a.Uint64Values()[lo:hi] {
			if v > math.MaxInt64 {
				return dst, fmt.Errorf("%s: rank %d out of range: %w", cv.where(unit, before+int64(lo+i)+1), v, batch.ErrValue)
			}
			dst = append(dst, int64(v))
		}
		return dst, nil
	}
	return dst, fmt.Errorf("unexpected array type %s: %w", arr.DataType(), batch.ErrColumn)
}
