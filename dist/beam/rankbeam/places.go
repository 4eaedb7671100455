package rankbeam

import (
	"fmt"
	"os"
	"time"

	"github.com/rankeval/rankeval/internal/outfile"
	"github.com/rankeval/rankeval/objstore"
)

// ShardExt is the extension of per-query shards in a summary format.
func ShardExt(format string) string {
	if format == "trec" {
		return ".trec"
	}
	return ".jsonl"
}

// ShardName names per-query shard i of n.
func ShardName(prefix, ext string, i, n int) string {
	return fmt.Sprintf("%s-%05d-of-%05d%s", prefix, i, n, ext)
}

// Places are where a job writes: the summary (- or "" for standard
// output), the per-query shards, the report and the state. The launcher
// checks them before the job starts, as rankeval opens its outputs before
// reading, and removes what a failed or interrupted job wrote.
type Places struct {
	Summary, Report, State string
	PerQuery, Ext          string // shards' prefix and extension (ShardExt)
	Shards                 int
}

// files lists the local files the job writes. Objects are written whole
// or not at all by their stores, and cannot be checked without writing.
func (p Places) files() (single, shards []string) {
	for _, f := range []string{p.Summary, p.Report, p.State} {
		if f != "" && f != "-" && !objstore.IsURL(f) {
			single = append(single, f)
		}
	}
	if p.PerQuery != "" && !objstore.IsURL(p.PerQuery) {
		for i := range p.Shards {
			shards = append(shards, ShardName(p.PerQuery, p.Ext, i, p.Shards))
		}
	}
	return single, shards
}

// Check refuses a place that cannot be written, with rankeval's message:
// each is opened as rankeval opens its outputs (outfile) and abandoned.
func (p Places) Check() error {
	single, shards := p.files()
	if len(shards) > 0 {
		single = append(single, shards[0]) // the others share its directory
	}
	for _, name := range single {
		f, err := outfile.Create(name)
		if err != nil {
			return err
		}
		f.Abort()
	}
	return nil
}

// Snapshot is what existed at the places before the job.
type Snapshot map[string]stamp

type stamp struct {
	size int64
	mod  time.Time
}

// Snapshot records the files at the places now.
func (p Places) Snapshot() Snapshot {
	single, shards := p.files()
	s := Snapshot{}
	for _, name := range append(single, shards...) {
		if st, err := os.Stat(name); err == nil {
			s[name] = stamp{st.Size(), st.ModTime()}
		}
	}
	return s
}

// Remove removes what a job that failed or was stopped wrote: the summary,
// report and state that are not as before, every per-query shard (the
// shards are one output: a mix of two runs' shards is worse than none),
// and the temporary files of writes cut short.
func (p Places) Remove(before Snapshot) {
	single, shards := p.files()
	for _, name := range single {
		st, err := os.Stat(name)
		if err == nil && st.Mode().IsRegular() && before[name] != (stamp{st.Size(), st.ModTime()}) {
			os.Remove(name)
		}
	}
	for _, name := range shards {
		os.Remove(name)
	}
	for _, name := range append(single, shards...) {
		outfile.RemoveTemps(name)
	}
}
