package synth

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// Options tune the columnar writers. The zero value gives defaults.
type Options struct {
	Codec       string // Parquet page compression: zstd (default), snappy, none
	RowGroup    int    // Parquet rows per row group (default 1<<20)
	IPCCodec    string // Arrow IPC buffer compression: none (default), zstd, lz4
	Batch       int    // rows per Arrow record batch (default 65536)
	FloatLabels bool   // write labels as float64 instead of int32
}

func (o Options) batch() int {
	if o.Batch <= 0 {
		return 65536
	}
	return o.Batch
}

// Formats lists the output name endings Write understands.
var Formats = []string{".jsonl", ".jsonl.gz", ".jsonl.zst", ".csv", ".csv.gz", ".csv.zst", ".tsv", ".tsv.gz", ".tsv.zst", ".parquet", ".arrow", ".feather", ".arrows"}

// Write writes up to limit rows of src (all of them when limit < 0) to the
// file name, in the format its ending names (see Formats). The file appears
// only when complete: it is written under a temporary name and renamed.
func Write(name string, src Source, limit int, opt Options) (err error) {
	tmp := name + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	// The writer hides f's Close: pqarrow's Close would close it too.
	s, err := newSink(name, struct{ io.Writer }{f}, opt)
	if err != nil {
		return err
	}
	var r Row
	for n := 0; (limit < 0 || n < limit) && src.Next(&r); n++ {
		if err := s.add(&r); err != nil {
			s.close()
			return err
		}
	}
	if err := s.close(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

// WriteSplit writes the first total rows of src as parts files
// dir/part-00000<ext>, dir/part-00001<ext>, ... of near-equal size; part
// boundaries ignore query boundaries, so a query may continue from one part
// into the next (the grouping contract spans files). With hive, parts go in
// Hive partition directories, two a day: dir/dt=2026-11-20/part-00000<ext>.
// Lexical order of the paths is the order of the rows.
func WriteSplit(dir, ext string, parts int, hive bool, src Source, total int, opt Options) error {
	if parts < 1 {
		return fmt.Errorf("split into %d parts: need at least 1", parts)
	}
	for i := range parts {
		sub := dir
		if hive {
			sub = filepath.Join(dir, "dt="+hiveDate(i/2))
		}
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return err
		}
		n := (i+1)*total/parts - i*total/parts
		if err := Write(filepath.Join(sub, fmt.Sprintf("part-%05d%s", i, ext)), src, n, opt); err != nil {
			return err
		}
	}
	return nil
}

// hiveDate is the day d days after 2026-11-20.
func hiveDate(d int) string {
	day := 20 + d
	month, year := 11, 2026
	for {
		n := 30
		if month == 12 || month == 1 {
			n = 31
		}
		if day <= n {
			break
		}
		day -= n
		if month++; month == 13 {
			month, year = 1, year+1
		}
	}
	return fmt.Sprintf("%04d-%02d-%02d", year, month, day)
}

type sink interface {
	add(r *Row) error
	close() error
}

func newSink(name string, w io.Writer, opt Options) (sink, error) {
	switch {
	case strings.HasSuffix(name, ".jsonl.gz"):
		return newJSONLSink(gzip.NewWriter(w)), nil
	case strings.HasSuffix(name, ".jsonl.zst"):
		z, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault))
		if err != nil {
			return nil, err
		}
		return newJSONLSink(z), nil
	case strings.HasSuffix(name, ".jsonl"):
		return newJSONLSink(nopCloser{w}), nil
	case strings.HasSuffix(name, ".parquet"):
		return newParquetSink(w, opt)
	case strings.HasSuffix(name, ".arrow"), strings.HasSuffix(name, ".feather"):
		return newIPCSink(w, true, opt)
	case strings.HasSuffix(name, ".arrows"):
		return newIPCSink(w, false, opt)
	}
	if s, ok, err := newDelimitedSink(name, w); ok {
		return s, err
	}
	return nil, fmt.Errorf("%s: unknown output format (want one of %s)", name, strings.Join(Formats, ", "))
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

type jsonlSink struct {
	wc  io.WriteCloser
	bw  *bufio.Writer
	buf []byte
}

func newJSONLSink(wc io.WriteCloser) *jsonlSink {
	return &jsonlSink{wc: wc, bw: bufio.NewWriterSize(wc, 1<<20), buf: make([]byte, 0, 128)}
}

func (s *jsonlSink) add(r *Row) error {
	b := append(s.buf[:0], `{"query_id":`...)
	b = appendJSONString(b, r.Query)
	b = append(b, `,"doc_id":`...)
	b = appendJSONString(b, r.Doc)
	if !r.NoScore {
		b = append(b, `,"score":`...)
		b = appendNumber(b, r.Score)
	}
	b = append(b, `,"label":`...)
	b = appendNumber(b, r.Label)
	if r.Market != "" {
		b = append(b, `,"market":`...)
		b = appendJSONString(b, r.Market)
	}
	if r.HasScoreB {
		b = append(b, `,"score_b":`...)
		b = appendNumber(b, r.ScoreB)
	}
	if r.HasScoreC {
		b = append(b, `,"score_c":`...)
		b = appendNumber(b, r.ScoreC)
	}
	if r.HasScoreD {
		b = append(b, `,"score_d":`...)
		b = appendNumber(b, r.ScoreD)
	}
	if r.HasRank {
		b = append(b, `,"rank":`...)
		b = strconv.AppendInt(b, r.Rank, 10)
	}
	if r.HasClicks {
		b = append(b, `,"position":`...)
		b = strconv.AppendInt(b, r.Position, 10)
		b = append(b, `,"propensity":`...)
		b = appendNumber(b, r.Propensity)
	}
	if r.Team != "" {
		b = append(b, `,"team":`...)
		b = appendJSONString(b, r.Team)
	}
	if r.Ranker != "" {
		b = append(b, `,"ranker":`...)
		b = appendJSONString(b, r.Ranker)
	}
	b = append(b, "}\n"...)
	s.buf = b
	_, err := s.bw.Write(b)
	return err
}

// appendJSONString writes s as a JSON string (strconv.Quote's \x escapes
// are not JSON).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, fmt.Sprintf("\\u%04x", c)...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// appendNumber writes v as JSON; NaN and infinities as the tokens the
// rankeval JSONL reader accepts so they reach its validation.
func appendNumber(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, 1):
		return append(b, "Infinity"...)
	case math.IsInf(v, -1):
		return append(b, "-Infinity"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

func (s *jsonlSink) close() error {
	if err := s.bw.Flush(); err != nil {
		s.wc.Close()
		return err
	}
	return s.wc.Close()
}

// Schema is the Arrow schema the columnar writers use for rows without
// market, score_b, score_c, score_d and rank.
func Schema(floatLabels bool) *arrow.Schema { return schema(floatLabels, layout{}) }

// layout is which optional columns a file has, as its first row shows.
type layout struct{ noScore, market, scoreB, scoreC, scoreD, rank, clicks, team, ranker bool }

func layoutOf(r *Row) layout {
	return layout{noScore: r.NoScore, market: r.Market != "", scoreB: r.HasScoreB, scoreC: r.HasScoreC, scoreD: r.HasScoreD,
		rank: r.HasRank, clicks: r.HasClicks, team: r.Team != "", ranker: r.Ranker != ""}
}

func schema(floatLabels bool, l layout) *arrow.Schema {
	var label arrow.DataType = arrow.PrimitiveTypes.Int32
	if floatLabels {
		label = arrow.PrimitiveTypes.Float64
	}
	fields := []arrow.Field{
		{Name: "query_id", Type: arrow.BinaryTypes.String},
		{Name: "doc_id", Type: arrow.BinaryTypes.String},
	}
	if !l.noScore {
		fields = append(fields, arrow.Field{Name: "score", Type: arrow.PrimitiveTypes.Float64})
	}
	fields = append(fields, arrow.Field{Name: "label", Type: label})
	if l.market {
		fields = append(fields, arrow.Field{Name: "market", Type: arrow.BinaryTypes.String})
	}
	if l.scoreB {
		fields = append(fields, arrow.Field{Name: "score_b", Type: arrow.PrimitiveTypes.Float64})
	}
	if l.scoreC {
		fields = append(fields, arrow.Field{Name: "score_c", Type: arrow.PrimitiveTypes.Float64})
	}
	if l.scoreD {
		fields = append(fields, arrow.Field{Name: "score_d", Type: arrow.PrimitiveTypes.Float64})
	}
	if l.rank {
		fields = append(fields, arrow.Field{Name: "rank", Type: arrow.PrimitiveTypes.Int64})
	}
	if l.clicks {
		fields = append(fields, arrow.Field{Name: "position", Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: "propensity", Type: arrow.PrimitiveTypes.Float64})
	}
	if l.team {
		fields = append(fields, arrow.Field{Name: "team", Type: arrow.BinaryTypes.String})
	}
	if l.ranker {
		fields = append(fields, arrow.Field{Name: "ranker", Type: arrow.BinaryTypes.String})
	}
	return arrow.NewSchema(fields, nil)
}

// recordSink accumulates rows into Arrow builders and hands a record of
// opt.Batch rows at a time to the writer, which open creates once the
// first row shows which optional columns there are.
type recordSink struct {
	opt     Options
	open    func(*arrow.Schema) (write func(arrow.RecordBatch) error, close func() error, err error)
	b       *array.RecordBuilder // nil before the first row
	l       layout
	n       int
	write   func(arrow.RecordBatch) error
	closeFn func() error
}

func (s *recordSink) start(l layout) error {
	sc := schema(s.opt.FloatLabels, l)
	w, c, err := s.open(sc)
	if err != nil {
		return err
	}
	s.b = array.NewRecordBuilder(memory.DefaultAllocator, sc)
	s.l, s.write, s.closeFn = l, w, c
	return nil
}

func (s *recordSink) add(r *Row) error {
	if s.b == nil {
		if err := s.start(layoutOf(r)); err != nil {
			return err
		}
	}
	s.b.Field(0).(*array.StringBuilder).Append(r.Query)
	s.b.Field(1).(*array.StringBuilder).Append(r.Doc)
	f := 2
	if !s.l.noScore {
		s.b.Field(f).(*array.Float64Builder).Append(r.Score)
		f++
	}
	if s.opt.FloatLabels {
		s.b.Field(f).(*array.Float64Builder).Append(r.Label)
	} else {
		if r.Label != math.Trunc(r.Label) || math.Abs(r.Label) > math.MaxInt32 {
			return fmt.Errorf("label %v is not an int32; write float labels", r.Label)
		}
		s.b.Field(f).(*array.Int32Builder).Append(int32(r.Label))
	}
	f++
	if s.l.market {
		s.b.Field(f).(*array.StringBuilder).Append(r.Market)
		f++
	}
	if s.l.scoreB {
		s.b.Field(f).(*array.Float64Builder).Append(r.ScoreB)
		f++
	}
	if s.l.scoreC {
		s.b.Field(f).(*array.Float64Builder).Append(r.ScoreC)
		f++
	}
	if s.l.scoreD {
		s.b.Field(f).(*array.Float64Builder).Append(r.ScoreD)
		f++
	}
	if s.l.rank {
		s.b.Field(f).(*array.Int64Builder).Append(r.Rank)
		f++
	}
	if s.l.clicks {
		s.b.Field(f).(*array.Int64Builder).Append(r.Position)
		s.b.Field(f + 1).(*array.Float64Builder).Append(r.Propensity)
		f += 2
	}
	if s.l.team {
		s.b.Field(f).(*array.StringBuilder).Append(r.Team)
		f++
	}
	if s.l.ranker {
		s.b.Field(f).(*array.StringBuilder).Append(r.Ranker)
	}
	if s.n++; s.n == s.opt.batch() {
		return s.flush()
	}
	return nil
}

func (s *recordSink) flush() error {
	if s.n == 0 {
		return nil
	}
	rec := s.b.NewRecordBatch()
	defer rec.Release()
	s.n = 0
	return s.write(rec)
}

func (s *recordSink) close() error {
	if s.b == nil { // no rows: a file with the base schema
		if err := s.start(layout{}); err != nil {
			return err
		}
	}
	err := s.flush()
	s.b.Release()
	if cerr := s.closeFn(); err == nil {
		err = cerr
	}
	return err
}

func newParquetSink(w io.Writer, opt Options) (sink, error) {
	codecs := map[string]compress.Compression{
		"": compress.Codecs.Zstd, "zstd": compress.Codecs.Zstd,
		"snappy": compress.Codecs.Snappy, "none": compress.Codecs.Uncompressed,
	}
	codec, ok := codecs[opt.Codec]
	if !ok {
		return nil, fmt.Errorf("unknown Parquet codec %q (want zstd, snappy or none)", opt.Codec)
	}
	rg := opt.RowGroup
	if rg <= 0 {
		rg = 1 << 20
	}
	// Dictionary encoding only where values repeat (query ids, markets), as
	// data-lake writers end up with; doc ids and scores would fall back.
	props := parquet.NewWriterProperties(
		parquet.WithCompression(codec),
		parquet.WithMaxRowGroupLength(int64(rg)),
		parquet.WithDictionaryDefault(false),
		parquet.WithDictionaryFor("query_id", true),
		parquet.WithDictionaryFor("market", true),
		parquet.WithStats(false),
	)
	return &recordSink{opt: opt, open: func(sc *arrow.Schema) (func(arrow.RecordBatch) error, func() error, error) {
		fw, err := pqarrow.NewFileWriter(sc, w, props, pqarrow.DefaultWriterProps())
		if err != nil {
			return nil, nil, err
		}
		// WriteBuffered keeps filling the current row group across
		// records, where Write would start a new row group per record.
		return fw.WriteBuffered, fw.Close, nil
	}}, nil
}

func newIPCSink(w io.Writer, file bool, opt Options) (sink, error) {
	var opts []ipc.Option
	switch opt.IPCCodec {
	case "", "none":
	case "zstd":
		opts = append(opts, ipc.WithZstd())
	case "lz4":
		opts = append(opts, ipc.WithLZ4())
	default:
		return nil, fmt.Errorf("unknown Arrow IPC codec %q (want none, zstd or lz4)", opt.IPCCodec)
	}
	return &recordSink{opt: opt, open: func(sc *arrow.Schema) (func(arrow.RecordBatch) error, func() error, error) {
		opts := append(opts, ipc.WithSchema(sc))
		if file {
			fw, err := ipc.NewFileWriter(w, opts...)
			if err != nil {
				return nil, nil, err
			}
			return fw.Write, fw.Close, nil
		}
		sw := ipc.NewWriter(w, opts...)
		return sw.Write, sw.Close, nil
	}}, nil
}
