package synth

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// delimitedSink writes CSV (RFC 4180: a field holding a comma, quote or
// line end is quoted, its quotes doubled) or TSV (values as they are, so
// one holding a tab or a line end makes a row rankeval refuses) under a
// header row that the first row's layout fixes, as it fixes the columnar
// writers' schema.
type delimitedSink struct {
	wc  io.WriteCloser
	bw  *bufio.Writer
	sep byte
	l   *layout
	buf []byte
}

// newDelimitedSink makes the sink for name when it ends in .csv or .tsv,
// plain or with .gz or .zst; ok is false for any other name.
func newDelimitedSink(name string, w io.Writer) (s sink, ok bool, err error) {
	base := strings.TrimSuffix(strings.TrimSuffix(name, ".gz"), ".zst")
	var sep byte
	switch {
	case strings.HasSuffix(base, ".csv"):
		sep = ','
	case strings.HasSuffix(base, ".tsv"):
		sep = '\t'
	default:
		return nil, false, nil
	}
	var wc io.WriteCloser = nopCloser{w}
	switch {
	case strings.HasSuffix(name, ".gz"):
		wc = gzip.NewWriter(w)
	case strings.HasSuffix(name, ".zst"):
		if wc, err = zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedDefault)); err != nil {
			return nil, true, err
		}
	}
	return &delimitedSink{wc: wc, bw: bufio.NewWriterSize(wc, 1<<20), sep: sep}, true, nil
}

func (s *delimitedSink) add(r *Row) error {
	b := s.buf[:0]
	if s.l == nil {
		l := layoutOf(r)
		s.l = &l
		for i, f := range schema(false, l).Fields() {
			if i > 0 {
				b = append(b, s.sep)
			}
			b = append(b, f.Name...)
		}
		b = append(b, '\n')
	}
	b = s.text(b, r.Query)
	b = append(b, s.sep)
	b = s.text(b, r.Doc)
	if !s.l.noScore {
		b = appendNumber(append(b, s.sep), r.Score)
	}
	b = appendNumber(append(b, s.sep), r.Label)
	if s.l.market {
		b = s.text(append(b, s.sep), r.Market)
	}
	if s.l.scoreB {
		b = appendNumber(append(b, s.sep), r.ScoreB)
	}
	if s.l.scoreC {
		b = appendNumber(append(b, s.sep), r.ScoreC)
	}
	if s.l.scoreD {
		b = appendNumber(append(b, s.sep), r.ScoreD)
	}
	if s.l.rank {
		b = strconv.AppendInt(append(b, s.sep), r.Rank, 10)
	}
	if s.l.clicks {
		b = strconv.AppendInt(append(b, s.sep), r.Position, 10)
		b = appendNumber(append(b, s.sep), r.Propensity)
	}
	if s.l.team {
		b = s.text(append(b, s.sep), r.Team)
	}
	if s.l.ranker {
		b = s.text(append(b, s.sep), r.Ranker)
	}
	b = append(b, '\n')
	s.buf = b
	_, err := s.bw.Write(b)
	return err
}

// text appends a text field, quoted as CSV needs.
func (s *delimitedSink) text(b []byte, v string) []byte {
	if s.sep == ',' && strings.ContainsAny(v, ",\"\r\n") {
		return append(append(b, '"'), strings.ReplaceAll(v, `"`, `""`)+`"`...)
	}
	return append(b, v...)
}

func (s *delimitedSink) close() error {
	if err := s.bw.Flush(); err != nil {
		s.wc.Close()
		return err
	}
	return s.wc.Close()
}
