package columnar

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
)

// maxParquetPage bounds the uncompressed size of one Parquet page. Writers
// make pages of about 1 MiB; the bound only matters for corrupt files, whose
// page or frame headers can claim gigabytes.
const maxParquetPage = 64 << 20

// arrow-go's zstd and snappy codecs size their output from the compressed
// frame's own header, not from the page header that was checked against the
// limit: one flipped byte in a zstd frame header made the reader allocate
// 35 GB and die (found by FuzzParquet). These wrappers bound decoding by
// maxParquetPage and are registered over the originals for the process
// (encoding, used by tests and scripts/gen, is delegated unchanged).
func init() {
	if c, err := compress.GetCodec(compress.Codecs.Zstd); err == nil {
		dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(maxParquetPage), zstd.WithDecoderConcurrency(0))
		if err == nil {
			compress.RegisterCodec(compress.Codecs.Zstd, boundedZstd{Codec: c, dec: dec})
		}
	}
	if c, err := compress.GetCodec(compress.Codecs.Snappy); err == nil {
		compress.RegisterCodec(compress.Codecs.Snappy, boundedSnappy{Codec: c})
	}
}

type boundedZstd struct {
	compress.Codec
	dec *zstd.Decoder
}

func (z boundedZstd) DecodeWithError(dst, src []byte) ([]byte, error) {
	return z.dec.DecodeAll(src, dst[:0])
}

func (z boundedZstd) Decode(dst, src []byte) []byte {
	out, err := z.DecodeWithError(dst, src)
	if err != nil {
		panic(err) // the Codec contract; compress.Decode prefers DecodeWithError
	}
	return out
}

type boundedSnappy struct{ compress.Codec }

func (s boundedSnappy) DecodeWithError(dst, src []byte) ([]byte, error) {
	n, err := snappy.DecodedLen(src)
	if err != nil {
		return nil, err
	}
	if n > maxParquetPage || n > len(dst) && dst != nil {
		return nil, fmt.Errorf("snappy block claims %d bytes, more than its page holds", n)
	}
	return snappy.Decode(dst, src)
}

func (s boundedSnappy) Decode(dst, src []byte) []byte {
	out, err := s.DecodeWithError(dst, src)
	if err != nil {
		panic(err)
	}
	return out
}

// The wrappers keep the streaming interface of the codecs they wrap.

func (z boundedZstd) NewReader(r io.Reader) io.ReadCloser {
	return z.Codec.(compress.StreamingCodec).NewReader(r)
}

func (z boundedZstd) NewWriter(w io.Writer) io.WriteCloser {
	return z.Codec.(compress.StreamingCodec).NewWriter(w)
}

func (z boundedZstd) NewWriterLevel(w io.Writer, l int) (io.WriteCloser, error) {
	return z.Codec.(compress.StreamingCodec).NewWriterLevel(w, l)
}

func (s boundedSnappy) NewReader(r io.Reader) io.ReadCloser {
	return s.Codec.(compress.StreamingCodec).NewReader(r)
}

func (s boundedSnappy) NewWriter(w io.Writer) io.WriteCloser {
	return s.Codec.(compress.StreamingCodec).NewWriter(w)
}

func (s boundedSnappy) NewWriterLevel(w io.Writer, l int) (io.WriteCloser, error) {
	return s.Codec.(compress.StreamingCodec).NewWriterLevel(w, l)
}
