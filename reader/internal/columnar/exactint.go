package columnar

import (
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/scan"
)

// checkIntScores checks rows [lo, hi) of a score column arr, converted
// into vals (vals[0] is row lo), against the rule for integer scores.
// Floating-point arrays, and integers too narrow to exceed 2^53, pass
// without a look.
func (cv *converter) checkIntScores(arr arrow.Array, vals []float64, lo, hi int, r batch.ColReq, unit int, before int64) error {
	bad, text := -1, ""
	switch a := arr.(type) {
	case *array.Int64:
		for i, x := range a.Int64Values()[lo:hi] {
			if !scan.Int64Exact(x) {
				bad, text = i, strconv.FormatInt(x, 10)
				break
			}
		}
	case *array.Uint64:
		for i, x := range a.Uint64Values()[lo:hi] {
			if !scan.OddBitsFit(x) {
				bad, text = i, strconv.FormatUint(x, 10)
				break
			}
		}
	case *array.Decimal64:
		if scale := a.DataType().(arrow.DecimalType).GetScale(); scale <= 0 {
			for i, x := range a.Values()[lo:hi] {
				if scale == 0 && scan.Int64Exact(int64(x)) {
					continue
				}
				if n := scan.ScaledInt(big.NewInt(int64(x)), scale); !scan.BigExact(n) {
					bad, text = i, n.String()
					break
				}
			}
		}
	case *array.Decimal128:
		if scale := a.DataType().(arrow.DecimalType).GetScale(); scale <= 0 {
			for i, x := range a.Values()[lo:hi] {
				h, l := x.HighBits(), x.LowBits()
				if scale == 0 && (h == 0 && l < 1<<53 || h == -1 && l > math.MaxUint64-1<<53) {
					continue
				}
				if n := scan.ScaledInt(x.BigInt(), scale); !scan.BigExact(n) {
					bad, text = i, n.String()
					break
				}
			}
		}
	case *array.Decimal256:
		if scale := a.DataType().(arrow.DecimalType).GetScale(); scale <= 0 {
			for i, x := range a.Values()[lo:hi] {
				if n := scan.ScaledInt(x.BigInt(), scale); !scan.BigExact(n) {
					bad, text = i, n.String()
					break
				}
			}
		}
	}
	if bad < 0 {
		return nil
	}
	return fmt.Errorf("%s: %q (%s): %s: %w", cv.where(unit, before+int64(lo+bad)+1), r.Name, r.Role(), scan.InexactMessage(text, vals[bad]), batch.ErrValue)
}
