package columnar_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/rankeval/rankeval/internal/synth"
	"github.com/rankeval/rankeval/reader"
	"github.com/rankeval/rankeval/reader/internal/batch"
	"github.com/rankeval/rankeval/reader/internal/readertest"
)

// fuzzSeeds adds small valid files of the given endings as seeds.
func fuzzSeeds(f *testing.F, exts ...string) {
	dir := f.TempDir()
	log := readertest.GenLog(1, 40, 7)
	rec := readertest.TypesRecord(memory.DefaultAllocator)
	defer rec.Release()
	ranks := readertest.RankRecord(memory.DefaultAllocator)
	defer ranks.Release()
	none := rec.NewSlice(0, 0)
	defer none.Release()
	for _, ext := range exts {
		for i, opt := range []synth.Options{{RowGroup: 16, Batch: 16}, {Codec: "snappy", IPCCodec: "lz4", RowGroup: 100, Batch: 100}, {Codec: "none", IPCCodec: "zstd", Batch: 13, RowGroup: 13}} {
			name := filepath.Join(dir, string(rune('a'+i))+ext)
			readertest.WriteLog(f, name, log, opt)
			b, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
		name := filepath.Join(dir, "types"+ext)
		readertest.WriteRecord(f, name, rec, 4)
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		// float rank columns, whole and not; and a file of no rows
		name = filepath.Join(dir, "ranks"+ext)
		readertest.WriteRecord(f, name, ranks, 4)
		if b, err = os.ReadFile(name); err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		name = filepath.Join(dir, "none"+ext)
		readertest.WriteRecord(f, name, none, 4)
		if b, err = os.ReadFile(name); err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// fuzzRead opens data as a file and reads it all: any error is fine, a
// panic or a hang is not.
func fuzzRead(t *testing.T, data []byte) {
	name := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cols := range []batch.Columns{readertest.StdCols, {Query: "q_dict", Doc: "d_u32", Score: "s_dec", Label: "l_bool", Rank: "r_i32"},
		{Query: "q_str", Label: "l_i32", Rank: "s_f32"}, {Query: "q", Label: "l", Rank: "r_f64"}} {
		for _, dec := range []int{1, 2} {
			r, err := reader.Open(name, cols, batch.Options{BatchSize: 7, Decoders: dec})
			if err != nil {
				continue
			}
			// A few bytes of RLE can legitimately stand for billions of
			// rows; the first ones exercise the decoders as well.
			for rows := 0; rows < 100_000 && r.Next(); {
				b := r.Batch()
				rows += b.N
				for i := range b.N {
					// what the pipeline does with a batch must not panic either
					_ = b.Query.At(i)
					if len(b.Doc.Off) > 1 {
						_ = b.Doc.At(i)
					}
					_ = b.Where(i)
				}
			}
			r.Close()
		}
	}
}

func FuzzParquet(f *testing.F) {
	fuzzSeeds(f, ".parquet")
	f.Fuzz(fuzzRead)
}

func FuzzArrow(f *testing.F) {
	fuzzSeeds(f, ".arrow", ".arrows")
	f.Fuzz(fuzzRead)
}
