package readertest

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/rankeval/rankeval/reader/internal/columnar"
)

// Tests that set columnar.ParquetOwnStrings to false read Parquet columns
// through pqarrow, the reference the reader's own decoding must match.
func init() { columnar.ParquetReference = PqarrowColumns }

// PqarrowColumns decodes leaves of row group u of pf with pqarrow's record
// reader, in batches of n rows.
func PqarrowColumns(pf *file.Reader, leaves []int, u, n int, mem memory.Allocator) (columnar.ReferenceColumns, error) {
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(n)}, mem)
	if err != nil {
		return nil, err
	}
	rr, err := fr.GetRecordReader(context.Background(), leaves, []int{u})
	if err != nil {
		return nil, err
	}
	return pqColumns{rr}, nil
}

type pqColumns struct{ rr pqarrow.RecordReader }

func (c pqColumns) Fields() []arrow.Field { return c.rr.Schema().Fields() }

func (c pqColumns) Release() { c.rr.Release() }

func (c pqColumns) Next() ([]arrow.Array, error) {
	if c.rr.Next() {
		return c.rr.RecordBatch().Columns(), nil
	}
	return nil, c.rr.Err()
}
